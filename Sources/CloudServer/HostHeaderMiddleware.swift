import CloudWebServices
import HTTPTypes
import Hummingbird

/// Refuses a request without a `Host` header, or with more than one, as RFC 9112 (3.2)
/// asks of a server: `BAD_REQUEST` with status 400, before anything else reads it. (Two
/// differing hosts are how a request is smuggled past a proxy that reads the other one.)
struct HostHeaderMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The header, which HTTP's types keep as the request's authority: a second one stays a field.
    private static let host = HTTPField.Name("Host")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.head.authority != nil, request.headers[values: Self.host].isEmpty else {
            throw WebServicesError.badRequest("A request has exactly one Host header (RFC 9112).")
        }
        return try await next(request, context)
    }
}
