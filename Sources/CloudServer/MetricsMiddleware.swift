import CloudWebServices
import Hummingbird

/// Counts each answered request in `/metrics`, by route and status, with its latency.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        // A client that left (`ClientLeft`) was never answered: it is not counted.
        let response = try await next(request, context)
        let (metrics, route, status) = (metrics, Self.route(of: request.uri.path), response.status.code)
        return response.whenWritten { clientLeft in
            if !clientLeft { metrics.record(route: route, status: status, elapsed: ContinuousClock.now - started) }
        }
    }

    /// The route a path counts under: an operation, or one of a few fixed names, never a
    /// path a client chose.
    static func route(of path: String) -> String {
        if path.hasPrefix("/webcourier/") { return "webcourier" }
        if path.hasPrefix("/assets/") { return "assets" }
        if [OperatorRoutes.healthPath, OperatorRoutes.metricsPath, OperatorRoutes.signInPath].contains(path) { return String(path.dropFirst()) }
        return WebServicesPath.parse(path)?.operation.rawValue ?? "unknown"
    }
}
