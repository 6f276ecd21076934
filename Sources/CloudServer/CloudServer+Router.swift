import Hummingbird

extension CloudServer {
    /// The server's routes, built from its settings alone: the operator's pages, the long
    /// polls, the asset bytes and the databases, each request through the request log,
    /// the metrics and the error answers (in that order, outermost first).
    func router(hub: ZoneChangeHub, metrics: ServerMetrics, uploads: UploadSpool) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestLogMiddleware(log: log))
            .add(middleware: MetricsMiddleware(metrics: metrics))
            .add(middleware: WebServicesErrorMiddleware(metrics: metrics))
            .add(middleware: PathSegmentsMiddleware(databasePaths: DatabasePathMiddleware(containers: containers, aliases: containerAliases)))
        let secret = ServerSecret(store: store)
        OperatorRoutes(store: store, metrics: metrics, hub: hub).add(to: router)
        LongPollRoute(store: store, hub: hub, secret: secret, clock: clock).add(to: router)
        AssetRoutes(store: store, secret: secret, clock: clock, uploads: uploads).add(to: router)
        DatabaseRoutes(store: store, containers: containers, aliases: containerAliases, scheme: scheme, secret: secret, clock: clock, hub: hub).add(to: router)
        return router
    }
}
