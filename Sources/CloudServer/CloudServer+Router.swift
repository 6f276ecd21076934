import Hummingbird

extension CloudServer {
    /// The server's routes, built from its settings alone: the operator's pages, the long
    /// polls, the asset bytes and the databases, each request through the request log,
    /// the metrics, the error answers, the watch for a client gone and the check of the
    /// Host header (in that order, outermost first). `connections` are the server's, on its
    /// sockets (`ServedHTTP1Channel`) or, for a test that sends requests to the router, in
    /// process (its transport drives them as a socket's `ConnectionWatch` does): a request is
    /// answered by the same code either way, a long poll's client gone and fair-share eviction
    /// included.
    func router(hub: ZoneChangeHub, metrics: ServerMetrics, uploads: UploadSpool, connections: ConnectionRegistry) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestLogMiddleware(log: log))
            .add(middleware: MetricsMiddleware(metrics: metrics))
            .add(middleware: WebServicesErrorMiddleware(metrics: metrics))
            .add(middleware: ClientGoneMiddleware(connections: connections))
            .add(middleware: HostHeaderMiddleware())
            .add(middleware: PathSegmentsMiddleware(databasePaths: DatabasePathMiddleware(containers: containers, aliases: containerAliases)))
        let secret = ServerSecret(store: store)
        let shares = FairShares(limits: fairShares, connections: connections)
        OperatorRoutes(store: store, metrics: metrics, hub: hub).add(to: router)
        LongPollRoute(
            store: store, hub: hub, shares: shares, secret: secret, clock: clock, pace: PollPace(limits: .init(shares: fairShares)), metrics: metrics
        ).add(to: router)
        AssetRoutes(store: store, secret: secret, clock: clock, uploads: uploads, shares: shares).add(to: router)
        DatabaseRoutes(store: store, containers: containers, aliases: containerAliases, scheme: scheme, secret: secret, clock: clock, hub: hub, shares: shares, metrics: metrics).add(to: router)
        return router
    }
}
