import CloudWebServices
import Crypto
import Hummingbird
import IdeaBoxFoundation
import ServerStore

/// Admits a request to a URL the server signed (an asset's upload or download URL, a
/// webcourier URL): the signed ticket at the end of the path is the whole of its
/// credentials, as with Apple's asset URLs. A wrong method is 405; a ticket forged,
/// expired or of another kind, or made for a token no longer valid for its account,
/// `AUTHENTICATION_FAILED`, saying `refusal`; one admitted ends if its token is revoked
/// while it is served (`ConnectionRegistry.closeServing`).
struct TicketMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The kind of ticket the path takes.
    let kind: AssetTicket.Kind
    /// The one method the URL takes.
    let method: HTTPRequest.Method
    /// Why a ticket is refused, as the client is told.
    let refusal: String
    let secret: ServerSecret
    let store: any AccountStore
    let clock: WallClock
    /// Whether it checks a ticket's token here; false where the route checks it itself (the
    /// webcourier route, in one read with the poll's subscriptions).
    var checksToken = true
    /// The server's connections, told which token each request serves (so that a revoke
    /// ends it); nil for the webcourier route, whose held polls the hub ends itself.
    var connections: ConnectionRegistry?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A long poll's set-up (its token and subscriptions, its `since` look) waits behind
        // the store's other calls: its answer, written later, does not.
        guard kind == .webcourier else { return try await admit(request, context: context, next: next) }
        return try await StoreGate.$lane.withValue(.poll) { try await admit(request, context: context, next: next) }
    }

    private func admit(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == method else { throw WebServicesError.methodNotAllowed([method.rawValue]) }
        let text = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let ticket = AssetTicket(text, secret: SymmetricKey(data: try await secret.bytes()), now: clock.now()), ticket.kind == kind else {
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: refusal)
        }
        if checksToken, let tokenHash = ticket.tokenHash {
            guard try await store.account(forAccessTokenHash: tokenHash) == ticket.account else {
                throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: refusal)
            }
        }
        if let tokenHash = ticket.tokenHash { connections?.serving(context.channel, tokenHash: tokenHash) }
        var context = context
        context.ticket = ticket
        // The log names the account the server signed the ticket for (its token, if the route
        // checks it, may yet be refused); `context.account` stays a token's alone.
        context.logged.account = ticket.account
        return try await next(request, context)
    }
}
