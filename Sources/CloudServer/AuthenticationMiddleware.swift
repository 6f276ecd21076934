import CloudWebServices
import Hummingbird
import ServerStore

/// Finds the account a request's credentials name, or refuses it: Apple's `ckAPIToken`
/// (the container's) with `ckWebAuthToken` (the account's) in the query, or (ours)
/// `Authorization: Bearer` with the account's token alone. None at all is
/// `AUTHENTICATION_REQUIRED` with the sign-in page's URL; a wrong or revoked one
/// `AUTHENTICATION_FAILED`. The account comes from the token alone. The connection is noted
/// as serving the token until its answer is written, so that a revoke ends it (issue 60).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let store: any AccountStore
    /// `http` or `https`: what the sign-in page's URL starts with.
    let scheme: String
    /// The server's connections, told which token each request serves (so that a revoke ends it).
    let connections: ConnectionRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let (account, tokenHash) = try await account(of: request)
        (context.account, context.tokenHash) = (account, tokenHash)
        connections.serving(context.channel, tokenHash: tokenHash)
        return try await next(request, context)
    }

    /// The account the request's credentials name, and the hash of its access token.
    private func account(of request: Request) async throws -> (String, String) {
        if let header = request.headers[.authorization] {
            let prefix = "Bearer "
            guard header.hasPrefix(prefix), header.utf8.count <= 512 else { throw WebServicesError.authenticationFailed }
            return try await account(forToken: String(header.dropFirst(prefix.count)))
        }
        let query = request.uri.queryParameters
        let apiToken = query["ckAPIToken"], webToken = query["ckWebAuthToken"]
        let signIn = request.baseURL(scheme: scheme) + OperatorRoutes.signInPath
        if apiToken == nil && webToken == nil { throw WebServicesError.authenticationRequired(redirectURL: signIn) }
        guard let apiToken, WebServicesPath.isValidAPIToken(apiToken),
              try await store.isValidAPIToken(hash: AccessToken.hash(apiToken.lowercased()))
        else {
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: "The ckAPIToken is missing, not valid, or revoked.")
        }
        guard let webToken, !webToken.isEmpty else { throw WebServicesError.authenticationRequired(redirectURL: signIn) }
        guard webToken.utf8.count <= 512 else { throw WebServicesError.authenticationFailed }
        return try await account(forToken: String(webToken))
    }

    private func account(forToken token: String) async throws -> (String, String) {
        let hash = AccessToken.hash(token)
        guard !token.isEmpty, let account = try await store.account(forAccessTokenHash: hash) else {
            throw WebServicesError.authenticationFailed
        }
        return (account, hash)
    }
}
