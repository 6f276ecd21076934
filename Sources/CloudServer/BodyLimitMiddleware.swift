import Hummingbird

/// Sets the most body bytes the routes behind it read (`context.maxUploadSize`): a JSON
/// body past it is refused unread, an upload past it refused as it arrives.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The most bytes.
    let maximumBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.maxUploadSize = maximumBytes
        return try await next(request, context)
    }
}
