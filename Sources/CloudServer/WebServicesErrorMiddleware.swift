import CloudKitModel
import CloudWebServices
import Hummingbird
import ServerStore

/// Answers whatever a route threw as CloudKit Web Services does: Apple's error dictionary
/// at its status. A body the format refuses is `BAD_REQUEST`; a path nothing is routed to is `NOT_FOUND`; a request the server's stop
/// cut off is `TRY_AGAIN_LATER` (503); a store that does not answer is `TRY_AGAIN_LATER`
/// with `retryAfter` (`serverDatabaseUnavailable`); a failure of the store's own counts in
/// `/metrics` and says no more than `INTERNAL_ERROR`.
struct WebServicesErrorMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where Task.isCancelled || error is CancellationError {
            // Cut off by the server's stop, past its deadline (whatever the cut made the
            // request throw): not the client's fault, nor a failure of the store.
            return .error(Self.stopping)
        } catch let error as WebServicesError {
            return .error(error)
        } catch let invalid as WebServicesFormat.Invalid {
            // A body the format refuses, wherever a route read it (a route that reads outside
            // `CloudOperations.readingBody` included: found by .ci/fuzz's router target).
            return .error(.badRequest(invalid.reason))
        } catch let refusal as UnreadBody {
            // The body is still on its way: the connection ends with this answer (ConnectionWatch).
            var refused = Response.error(refusal.error)
            refused.headers[.connection] = "close"
            return refused
        } catch let left as ClientLeft {
            throw left
        } catch is StoreCaller.Gone {
            throw ClientLeft()
        } catch let error as CloudError {
            if [.internalError, .serviceUnavailable, .serverDatabaseUnavailable].contains(error.code) { metrics.storeFailed() }
            return .error(WebServicesError(error))
        } catch let error as HTTPError where error.status == .notFound {
            return .error(Self.noSuchEndpoint)
        } catch {
            // Named in the server's log: an internal error the client sees is one to find.
            CloudServer.logger.error("answered 500 for an error of no known kind: \(String(reflecting: error))")
            metrics.storeFailed()
            return .error(WebServicesError(.internalError))
        }
    }

    /// The answer for a request the server's stop cut off.
    static let stopping = WebServicesError(code: "TRY_AGAIN_LATER", reason: "The server is stopping; try again.", retryAfter: 5)

    /// The answer for a path that names nothing served.
    static let noSuchEndpoint = WebServicesError(code: "NOT_FOUND", reason: "No such endpoint.")
}
