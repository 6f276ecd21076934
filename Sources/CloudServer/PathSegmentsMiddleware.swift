import CloudWebServices
import Hummingbird

/// Answers a path with an empty segment (`//`, or a `/` at the end) before the router,
/// which reads `/a//b/` as `/a/b`: a signed URL with no ticket is refused as a bad ticket
/// (after its method), a database path is checked as any other (an empty environment is
/// `BAD_REQUEST`, an empty database `ACCESS_DENIED`), and anything else names nothing.
struct PathSegmentsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// What database paths may name.
    let databasePaths: DatabasePathMiddleware

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.dropFirst().contains(where: \.isEmpty) else { return try await next(request, context) }
        if parts.count == 3, parts[1] == "webcourier", parts[2].isEmpty {
            guard request.method == .get else { throw WebServicesError.methodNotAllowed(["GET"]) }
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: LongPollRoute.refusal)
        }
        if parts.count == 4, parts[1] == "assets", parts[3].isEmpty, let method = ["upload": HTTPRequest.Method.post, "download": .get][String(parts[2])] {
            guard request.method == method else { throw WebServicesError.methodNotAllowed([method.rawValue]) }
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: AssetRoutes.refusal)
        }
        if WebServicesPath.parse(request.uri.path) != nil { _ = try databasePaths.path(request) }
        throw WebServicesErrorMiddleware.noSuchEndpoint
    }
}
