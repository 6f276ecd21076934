import Hummingbird
import ServerStore

/// Tells the store's gate how to know that a request's client has gone (its connection
/// closed, or its sending half, as `ConnectionRegistry` counts a client gone): a request whose
/// client leaves while its first store call waits in line then makes no store call at all
/// (`StoreCaller`), and is logged as 499 like any request its client left.
struct ClientGoneMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let connections: ConnectionRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let channel = context.channel
        let caller = StoreCaller { connections.hasClientGone(channel) }
        return try await StoreCaller.$current.withValue(caller) { try await next(request, context) }
    }
}
