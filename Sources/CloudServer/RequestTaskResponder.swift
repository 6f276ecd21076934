import Hummingbird

/// Runs each request's middlewares and route in a task of their own, a child of the
/// connection's task, so that their frames are given back when the route returns.
///
/// Hummingbird serves every request of a connection in one task, and Swift's task allocator
/// keeps a task's slabs at their high-water mark until the task ends: without this, a
/// keep-alive connection keeps the frames of the deepest request it ever served (the eight
/// middlewares, the operation, the store's calls: 20–30 KiB) for as long as it stays open,
/// idle or holding a long poll (issue 40). What runs on the connection's task now is
/// Hummingbird's own, and the writing of the answer's body.
struct RequestTaskResponder<Routes: HTTPResponder>: HTTPResponder where Routes.Context: Sendable {
    let routes: Routes

    func respond(to request: Request, context: Routes.Context) async throws -> Response {
        async let response = routes.respond(to: request, context: context)
        return try await response
    }
}
