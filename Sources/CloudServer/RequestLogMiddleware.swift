import Hummingbird

/// Writes each request's line to the log once it is answered (`RequestLog`): its method, a
/// path that never holds a ticket, the status, the time taken and the account. A body
/// written as it goes (a long poll's) is answered once it is written.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let log: RequestLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let path = Self.loggedPath(request.uri.path)
        do {
            let response = try await next(request, context)
            let (log, method, status, logged) = (log, request.method.rawValue, response.status.code, context.logged)
            return response.whenWritten { clientLeft in
                log.record(
                    method: method, path: path, status: clientLeft ? ClientLeft.loggedStatus : status, elapsed: ContinuousClock.now - started,
                    account: logged.account)
            }
        } catch is ClientLeft {
            log.record(
                method: request.method.rawValue, path: path, status: ClientLeft.loggedStatus, elapsed: ContinuousClock.now - started,
                account: context.logged.account)
            return .error(.badRequest("The client left before its request was read."))
        }
    }

    /// `path` as the log shows it: at most 300 characters, and without the ticket of a
    /// webcourier or asset URL, which authorises whoever holds it.
    static func loggedPath(_ path: String) -> String {
        if path.hasPrefix("/webcourier/") { return "/webcourier/…" }
        if path.hasPrefix("/assets/") { return "/" + path.split(separator: "/").prefix(2).joined(separator: "/") + "/…" }
        return String(path.prefix(300))
    }
}
