import Dispatch
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import IdeaBoxFoundation
import Logging
import NIOCore
import ServerStore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `ideabox serve`: CloudKit Web Services over HTTP/1.1 for the accounts of a `RecordStore`.
public struct CloudServer: Sendable {
    /// The address to listen on, such as 127.0.0.1.
    public var host: String
    /// The port; 0 takes a free one (see `onRunning`).
    public var port: Int
    /// The containers served (at least one). The first one's production databases are the
    /// accounts' own names in the store; another container's are `account@container`, and
    /// development has databases of its own (`DatabaseOwner.key`), so that no two containers
    /// or environments share data.
    public var containers: [String]
    /// Other names a client may give a served container, each for the same data (alias →
    /// container): the product's earlier container name, say. An alias of a container not
    /// served is not served either.
    public var containerAliases: [String: String] = [:]
    /// Where the records and tokens are.
    public var store: any RecordStore
    /// Where each request's line goes.
    public var log: RequestLog
    /// What asset URLs' expiry is measured by.
    public var clock: WallClock
    /// HTTPS with this certificate, or plain HTTP if nil.
    public var tls: ServerTLS?
    /// How long a connection may send nothing (between requests, or within one: a header or
    /// a body that stalls) before it is closed. A held long poll, fully read, is never idle.
    public var idleTimeout: Duration = .seconds(ServerDefaults.idleTimeoutSeconds)
    /// How long a stop (SIGTERM) lets the requests in flight finish before closing them.
    public var shutdownTimeout: Duration = .seconds(ServerDefaults.shutdownTimeoutSeconds)
    /// The most connections open at once; more wait in the listen backlog. The default is
    /// what the process may still open (its limit less the files it has open: a parent's
    /// inherited ones count too) less 64, for the store, the logs and the uploads.
    public var maximumConnections = max(64, Int(min(FileLimit.available, 1 << 20)) - 64)
    /// The most asset uploads received at once; more are answered `TRY_AGAIN_LATER`. Each
    /// is written to a file as it arrives, so this bounds open files and disk, not memory.
    public var maximumUploads = ServerDefaults.maximumUploads
    /// What one account may hold at once: long polls, request bodies and uploads in progress.
    public var fairShares = FairShareLimits.defaults
    /// Where uploads are written as they arrive (a folder of this process's is made in it).
    /// On disk, not in memory: the system's temporary folder is memory on many systems, so
    /// `serve` passes a folder beside its data.
    public var uploadFolder = FileManager.default.temporaryDirectory
    /// How often assets no record names are collected (those uploaded over an hour before).
    public var assetCollectionInterval: Duration = .seconds(600)
    /// How long a record's deletion is remembered (for the devices that have not seen it
    /// yet, and against its account's quota of records) before the collection forgets it
    /// (`serve --tombstone-retention-days`).
    public var tombstoneRetention = defaultTombstoneRetention
    /// 90 days (`ServerDefaults`): a device that syncs less often than that fetches its zones anew.
    public static let defaultTombstoneRetention: Duration = .seconds(ServerDefaults.tombstoneRetentionDays * 86_400)
    /// The most bytes of header a request may have; a larger one is answered with the JSON
    /// error (`BAD_REQUEST`) and its connection closed.
    static let maximumHeaderBytes = 64 << 10

    /// A server of `store` on `host`:`port`.
    public init(
        store: any RecordStore, host: String = "127.0.0.1", port: Int = 8420,
        containers: [String], clock: WallClock = .system, log: RequestLog, tls: ServerTLS? = nil
    ) {
        precondition(!containers.isEmpty, "a server serves at least one container")
        self.store = store
        self.host = host
        self.port = port
        self.containers = containers
        self.clock = clock
        self.log = log
        self.tls = tls
    }

    /// `https` with a certificate, `http` without.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// The Hummingbird application on a socket, built from the settings alone; `start` runs the
    /// hub and the collector beside it, in a group of its own, which stops the hub first.
    /// `onRunning` gets the port it listens on. (A test that sends requests to the router
    /// in process builds its application from `connections` and `router` as this does.)
    func application(
        hub: ZoneChangeHub, metrics: ServerMetrics, uploads: UploadSpool,
        onRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let registry = connections(hub: hub)
        let http1 = ServedHTTP1Channel.builder(registry: registry, idleTimeout: idleTimeout)
        let routes = router(hub: hub, metrics: metrics, uploads: uploads, connections: registry)
        return Application(
            responder: routes.buildResponder(),
            server: try tls.map { try .tls(http1, tlsConfiguration: $0.configuration) } ?? http1,
            configuration: ApplicationConfiguration(
                // A backlog of 1,024 (Hummingbird's default is 256): connections that come
                // while the server is at its limit wait there, not in SYN retries.
                address: .hostname(host, port: port), serverName: "ideabox", backlog: 1024,
                availableConnectionsDelegate: ConnectionLimit(limit: registry.limit, metrics: metrics)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: Self.logger)
    }

    /// The server's connections, at most as many as it may open files for (each upload in
    /// flight holds a file open too); `hub` ends those that serve a token revoked.
    func connections(hub: ZoneChangeHub) -> ConnectionRegistry {
        let registry = ConnectionRegistry(limit: min(maximumConnections, max(16, Int(min(FileLimit.available, 1 << 20)) - 64 - maximumUploads)))
        hub.endsRevokedRequests(on: registry)
        return registry
    }

    static var logger: Logger {
        var logger = Logger(label: "ideabox.serve")
        logger.logLevel = .warning
        return logger
    }

    /// Starts serving in the background and returns once the server listens (or throws why
    /// it could not: a `ListenError` for a port in use, say). Each of
    /// `gracefulShutdownSignals` stops it the way `RunningServer.stop()` does.
    public func start(gracefulShutdownSignals: [UnixSignal] = []) async throws -> RunningServer {
        // Hummingbird's own service group, winding down after its server failed to bind,
        // deadlocked about one start in thirty (apple/swift-async-algorithms#430: `merge`
        // under a task executor preference), so `start` never returned: the common failures
        // are found first, with a bind of the address's own.
        try ListenError.check(host: host, port: port)
        let ready = Latch()
        let port = Mutex<Int?>(nil)
        let failure = Mutex<(any Error)?>(nil)
        // The hub comes last, so that it is stopped first: its long polls are answered before
        // the server waits for the requests in flight.
        let hub = ZoneChangeHub(store: store, logger: Self.logger, limits: fairShares, accounts: store)
        let uploads = try UploadSpool(maximumUploads: maximumUploads, parent: uploadFolder)
        let metrics = ServerMetrics()
        if let availability = store.availability {
            var logger = Logger(label: "ideabox.serve")
            logger.logLevel = .notice
            StoreOutageLog.follow(availability, metrics: metrics, logger: logger)
        }
        var configuration = ServiceGroupConfiguration(
            services: [
                try application(hub: hub, metrics: metrics, uploads: uploads, onRunning: { listening in
                    port.withLock { $0 = listening }
                    ready.open()
                }),
                AssetCollector(
                    store: store, clock: clock, logger: Self.logger, interval: assetCollectionInterval, tombstoneRetention: tombstoneRetention),
                HeapTrimmer(connectionsClosed: { metrics.connectionsClosed }),
                hub,
            ],
            gracefulShutdownSignals: gracefulShutdownSignals,
            logger: Logger(label: "ideabox.serve.lifecycle"))
        // Past the deadline the requests still in flight are cancelled and their connections
        // closed. (No limit on the cancellation itself: ServiceLifecycle would end the whole
        // process past it, which for a server run in a test is the test run.)
        configuration.maximumGracefulShutdownDuration = shutdownTimeout
        let group = ServiceGroup(configuration: configuration)
        // Every request handler is a child task of this one, so all of them run on threads
        // that may block on the store instead of Swift's few cooperative threads.
        let finished = Task(executorPreference: BlockingTaskExecutor.shared) {
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = error }
            }
            uploads.remove()
            ready.open()
        }
        await ready.opened()
        guard let listening = port.withLock({ $0 }) else {
            let error: any Error = failure.withLock { $0 } ?? CancellationError()
            // Before it listens, the only system calls that fail are the socket's own.
            if let error = error as? IOError { throw ListenError(host: host, port: self.port, code: error.errnoCode) }
            throw error
        }
        return RunningServer(port: listening, group: group, finished: finished)
    }
}

/// A server started by `CloudServer.start`.
public final class RunningServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let group: ServiceGroup
    private let finished: Task<Void, Never>

    init(port: Int, group: ServiceGroup, finished: Task<Void, Never>) {
        self.port = port
        self.group = group
        self.finished = finished
    }

    /// Stops taking connections, lets the requests in flight finish, and returns when the
    /// server has stopped. A store's transactions commit or roll back whole, so stopping
    /// never leaves a request half-written.
    public func stop() async {
        requestStop()
        await waitUntilStopped()
    }

    /// Asks the server to stop as `stop()` does, without waiting for it.
    public func requestStop() {
        let group = group
        Task(executorPreference: BlockingTaskExecutor.shared) { await group.triggerGracefulShutdown() }
    }

    /// Returns once the server has stopped (after a signal or `stop()`).
    public func waitUntilStopped() async {
        await finished.value
    }
}
