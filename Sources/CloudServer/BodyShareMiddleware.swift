import Hummingbird

/// Counts each account's request bodies being received against its share
/// (`FairShareLimits.bodiesPerAccount`): past it, as many again wait unread in the
/// account's line (at most `FairShares.bodyPatience`), and one past those is answered
/// `TRY_AGAIN_LATER` unread. One being received or in line holds its connection for the
/// account, so a server short of connections may close it (`ConnectionRegistry.hold`): a
/// thousand bodies sent a byte at a time by one account keep nobody else out.
///
/// The share is given back once the body is read whole (at most `context.maxUploadSize`
/// bytes), before the route runs: a body that has arrived holds no connection hostage, and
/// an account's devices woken together, whose fetches a loaded store answers slowly, are
/// answered late rather than refused.
struct BodyShareMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let shares: FairShares
    /// How long a request waits in its account's line for a share before it is refused.
    var patience: Duration = FairShares.bodyPatience

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let account = context.account, Self.hasBody(request) else { return try await next(request, context) }
        var request = request
        do {
            shares.connections.hold(context.channel, for: account)
            defer { shares.connections.letGo(context.channel) }
            guard await shares.bodies.claim(account, waitingAtMost: patience) else {
                throw FairShares.refusal("request bodies", limit: shares.limits.bodiesPerAccount)
            }
            defer { shares.bodies.release(account) }
            try await request.receiveBody(context: context)
        }
        return try await next(request, context)
    }

    /// Whether `request` says a body follows.
    static func hasBody(_ request: Request) -> Bool {
        if request.headers[.transferEncoding] != nil { return true }
        return request.headers[.contentLength].map { $0 != "0" } ?? false
    }
}
