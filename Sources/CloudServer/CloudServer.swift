import CloudRemote
import Dispatch
import Hummingbird
import Logging
import ServiceLifecycle

/// `ideabox serve`: CloudKit Web Services over HTTP/1.1 for the accounts of a `RecordStore`.
public struct CloudServer: Sendable {
    /// The address to listen on, such as 127.0.0.1.
    public var host: String
    /// The port; 0 takes a free one (see `onRunning`).
    public var port: Int
    /// The container paths must name.
    public var container: String
    /// Where the records and tokens are.
    public var store: any RecordStore
    /// Where each request's line goes.
    public var log: RequestLog

    /// A server of `store` on `host`:`port`.
    public init(
        store: any RecordStore, host: String = "127.0.0.1", port: Int = 8420,
        container: String = WebServicesPath.defaultContainer, log: RequestLog
    ) {
        self.store = store
        self.host = host
        self.port = port
        self.container = container
        self.log = log
    }

    /// The Hummingbird application, built from the settings alone so that a test can run
    /// it in process; `onRunning` gets the port it listens on.
    public func application(onRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "ideabox.serve")
        logger.logLevel = .warning
        return Application(
            responder: CloudWebResponder(store: store, container: container, log: log),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "ideabox"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then stops taking connections, lets the requests
    /// in flight finish and returns. A store's transactions commit or roll back whole, so
    /// stopping never leaves a request half-written.
    public func run(onRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [application(onRunning: onRunning)], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: Logger(label: "ideabox.serve.lifecycle")))
        try await Self.onBlockingExecutor { try await group.run() }
    }

    /// Runs `body` with its child tasks (every request handler) on threads that may block
    /// on the store, instead of Swift's few cooperative threads.
    public static func onBlockingExecutor<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withTaskExecutorPreference(BlockingTaskExecutor.shared, operation: body)
    }
}

/// A task executor on a Dispatch queue that adds threads when its jobs block, as a store's
/// SQLite or socket calls do.
final class BlockingTaskExecutor: TaskExecutor {
    static let shared = BlockingTaskExecutor()

    private let queue = DispatchQueue(label: "ideabox.serve.requests", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
