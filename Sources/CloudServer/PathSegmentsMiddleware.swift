import Hummingbird

/// Refuses a path with an empty segment (`//`, or a `/` at the end) as naming nothing. The
/// router reads `/a//b/` as `/a/b`; the served paths are CloudKit's, written one way only.
struct PathSegmentsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains(where: \.isEmpty) else {
            throw WebServicesErrorMiddleware.noSuchEndpoint
        }
        return try await next(request, context)
    }
}
