import CloudKitModel
import Glibc
import Logging
import PostgresNIO
import ServerStore
import Synchronization

/// The store's pool of connections, and the watch that notices when PostgreSQL stops
/// answering and when it answers again.
///
/// postgres-nio's pool retries a connection it cannot open after a backoff that grows by a
/// quarter each failure (up to a minute), queues the calls that wait for one meanwhile, and
/// after 15 s of failures fails them (`connectionCreationCircuitBreakerTripped`) until its
/// next try works. After a minute and a half down its next try came some 20 s after the
/// database was back: 15 s of errors for nothing (issue 58). So the store keeps the pool
/// only while the database answers:
/// - a call that fails as a lost or refused connection makes the watch look at once, and
///   one that has waited more than `connectionWait` for a connection while the pool gave
///   none out, at its next look: one connection of its own, given `lookTimeout`. If that
///   fails too the store is down (`StoreAvailability`): the pool is closed (every call
///   waiting in it is answered), and every call fails at once;
/// - while it is down the watch looks every `lookInterval`, and the first look that
///   connects opens a new pool, which connects at once: no backoff left over.
///
/// So a call waits for a connection at most `connectionWait` + `lookInterval` +
/// `lookTimeout` (8 s) past the pool's last lease, and a database that answers again is
/// used within `lookInterval`.
///
/// Calls that wait behind a busy pool (its connections leased, working, given back) are a
/// queue, not a pool stuck: the pool is replaced only when it has given out or taken back
/// no connection for `connectionWait` and holds none out (a connection given back and not
/// yet handed to the next call in line is a pool at work, however long it was held). Replacing it closes its connections, and a
/// query in flight on one of them was seen never to end (postgres-nio's pool cancelled
/// under a leased connection): a test's pool of two, eight queries at once on a loaded
/// machine, waited 5 s in line, the pool was replaced under the two working ones, and both
/// hung for good.
final class PostgresConnections: Sendable {
    /// How long a call may wait for a connection before the watch looks at the database.
    static let connectionWait: Duration = .seconds(5)
    /// How often the watch looks for calls waiting too long, and while the database is down,
    /// at the database.
    static let lookInterval: Duration = .seconds(1)
    /// How long one look at the database (a connection of its own) may take.
    static let lookTimeout: Duration = .seconds(2)

    /// Whether the database answers, as the calls and the watch find it.
    let availability = StoreAvailability()
    private let configuration: PostgresClient.Configuration
    /// `host:port`, for the log's line when the database does not answer.
    private let address: String
    private let lookConfiguration: PostgresConnection.Configuration
    private let logger: Logger

    private struct Pool {
        let client: PostgresClient
        let running: Task<Void, Never>
    }

    private struct State {
        var pool: Pool?
        /// When each call now waiting for a connection began to wait, by its ticket.
        var waits: [UInt64: ContinuousClock.Instant] = [:]
        /// How many calls hold a connection of the pool now (`opened` names the pool).
        var leased = 0
        /// When the pool last gave out or took back a connection (or was opened).
        var lastMove = ContinuousClock.now
        /// How many pools the store has opened: the pool's number, and for tests.
        var opened = 0
        /// How many looks the watch has taken: for tests.
        var looks = 0
        var nextTicket: UInt64 = 0
        /// How the last call that failed for its connection failed, if none answered since.
        var failure: String?
        var isClosed = false
    }

    private let state = Mutex(State())
    /// How long a call may wait for a connection, with none given out, before the watch
    /// looks at the database (`connectionWait`, shorter in tests).
    private let waitLimit: Duration
    private let kicks: AsyncStream<Void>.Continuation
    private let watching = Mutex<Task<Void, Never>?>(nil)

    /// A pool made with `configuration`, and a watch that looks at the database with
    /// connections made with `look`.
    init(
        configuration: PostgresClient.Configuration, look: PostgresConnection.Configuration, logger: Logger,
        connectionWait: Duration = PostgresConnections.connectionWait, lookInterval: Duration = PostgresConnections.lookInterval
    ) {
        self.configuration = configuration
        waitLimit = connectionWait
        address = "\(configuration.host ?? configuration.unixSocketPath ?? "?"):\(configuration.port.map(String.init) ?? "-")"
        var look = look
        look.options.connectTimeout = .seconds(Self.lookTimeout.components.seconds)
        lookConfiguration = look
        self.logger = logger
        let (stream, kicks) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.kicks = kicks
        state.withLock { state in
            state.pool = Self.open(configuration, logger: logger)
            state.opened += 1
        }
        let watch = Task(executorPreference: BlockingTaskExecutor.shared) { [weak self] in
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: lookInterval)
                        kicks.yield()
                    }
                }
                for await _ in stream {
                    guard let self else { break }
                    await self.look()
                }
                group.cancelAll()
            }
        }
        watching.withLock { $0 = watch }
    }

    deinit {
        close()
    }

    /// Closes the pool and stops the watch.
    func close() {
        let pool = state.withLock { state -> Pool? in
            state.isClosed = true
            defer { state.pool = nil }
            return state.pool
        }
        pool?.running.cancel()
        kicks.finish()
        watching.withLock { $0 }?.cancel()
    }

    /// Runs `body` on a pooled connection; fails at once with the availability's refusal
    /// while the database is down.
    func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        guard !availability.isDown,
              let (client, ticket, pool) = state.withLock({ state -> (PostgresClient, UInt64, Int)? in
                  guard let pool = state.pool else { return nil }
                  state.nextTicket += 1
                  state.waits[state.nextTicket] = .now
                  return (pool.client, state.nextTicket, state.opened)
              })
        else { throw availability.refusal }
        do {
            let result = try await client.withConnection { connection in
                leased(ticket, from: pool)
                defer {
                    state.withLock { state in
                        guard state.opened == pool else { return }
                        state.leased -= 1
                        state.lastMove = .now
                    }
                }
                return try await body(connection)
            }
            state.withLock { state in
                state.failure = nil
                state.waits[ticket] = nil
            }
            return result
        } catch {
            leased(ticket)
            throw error
        }
    }

    /// The call `ticket` waits no more: it holds a connection of the pool numbered `pool`
    /// now, or (nil) failed without one.
    private func leased(_ ticket: UInt64, from pool: Int? = nil) {
        state.withLock { state in
            state.waits[ticket] = nil
            if let pool, pool == state.opened {
                state.leased += 1
                state.lastMove = .now
            }
        }
    }

    /// How many pools have been opened, how many looks taken, and how long the call that
    /// has waited longest for a connection has waited: for tests.
    var counts: (opened: Int, looks: Int, longestWait: Duration) {
        let now = ContinuousClock.now
        return state.withLock { state in
            (state.opened, state.looks, state.waits.values.map { now - $0 }.max() ?? .zero)
        }
    }

    /// A call failed for its connection (`cause`): the watch looks at the database now.
    func connectionFailed(_ cause: String) {
        state.withLock { $0.failure = cause }
        kicks.yield()
    }

    /// One look: at the database while it is down (and a new pool once it answers); else,
    /// after a failed connection or a call waiting too long, whether it is down.
    func look() async {
        if availability.isDown {
            guard await Self.lookAtDatabase(lookConfiguration, address: address, logger: logger) == nil else { return }
            replacePool()
            availability.answered(at: .now)
            return
        }
        let now = ContinuousClock.now
        let (failure, stuck) = state.withLock { [waitLimit] state -> (String?, Bool) in
            defer {
                state.failure = nil
                state.looks += 1
            }
            let idle = state.leased == 0 && now - state.lastMove > waitLimit
            let stuck = idle && state.waits.values.contains { now - $0 > waitLimit }
            return (state.failure, stuck)
        }
        guard failure != nil || stuck else { return }
        if let cause = await Self.lookAtDatabase(lookConfiguration, address: address, logger: logger) {
            // Every call waiting in the pool is answered now, and none waits until it is back.
            let pool = state.withLock { state -> Pool? in
                defer { state.pool = nil }
                return state.pool
            }
            availability.wentDown(cause: cause, at: now)
            pool?.running.cancel()
        } else if stuck {
            // The database answers, yet calls wait: the pool waits out a backoff of its own.
            replacePool()
        }
    }

    /// A new pool in place of the one there is (closed, its calls answered).
    private func replacePool() {
        let fresh = Self.open(configuration, logger: logger)
        let old = state.withLock { state -> Pool? in
            guard !state.isClosed else { return fresh }
            // The failures of the old pool's calls say nothing of the new one's.
            state.failure = nil
            state.lastMove = .now
            state.leased = 0
            state.opened += 1
            defer { state.pool = fresh }
            return state.pool
        }
        old?.running.cancel()
    }

    private static func open(_ configuration: PostgresClient.Configuration, logger: Logger) -> Pool {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return Pool(client: client, running: Task(executorPreference: BlockingTaskExecutor.shared) { await client.run() })
    }

    /// Nil if a connection of its own opens and answers `SELECT 1` within `lookTimeout`,
    /// else how it failed (at `address`).
    static func lookAtDatabase(_ configuration: PostgresConnection.Configuration, address: String, logger: Logger) async -> String? {
        await firstOf(timeout: lookTimeout, else: "no answer within \(lookTimeout.components.seconds) s") {
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            } catch {
                return cause(of: error, at: address)
            }
            do {
                try await connection.query("SELECT 1", logger: logger)
                try? await connection.close()
                return nil
            } catch {
                try? await connection.close()
                return cause(of: error, at: address)
            }
        }
    }

    /// How a connection to `address` failed, in a few words: the system's for a socket's
    /// failure (`connection refused at db-host:5432`, not the driver's nested description),
    /// else PostgreSQL's own (`the database system is starting up`).
    static func cause(of error: any Error, at address: String) -> String {
        let described = PostgresRecordStore.describe(error)
        guard let match = described.firstMatch(of: /\(errno: (\d+)\)/), let code = Int32(match.1) else { return described }
        return String(cString: strerror(code)).lowercased() + " at " + address
    }

    /// What `work` returns, or `otherwise` if it has not returned within `timeout` (it is
    /// then cancelled, and left to end on its own: a connection that hangs is never waited for).
    static func firstOf(
        timeout: Duration, else otherwise: String, _ work: @escaping @Sendable () async -> String?
    ) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let waiting = Waiting(continuation)
            let worker = Task(executorPreference: BlockingTaskExecutor.shared) {
                waiting.resume(returning: await work())
            }
            Task(executorPreference: BlockingTaskExecutor.shared) {
                try? await Task.sleep(for: timeout)
                if waiting.resume(returning: otherwise) { worker.cancel() }
            }
        }
    }

    /// A continuation resumed once, by whichever comes first.
    private final class Waiting: Sendable {
        private let continuation: Mutex<CheckedContinuation<String?, Never>?>

        init(_ continuation: CheckedContinuation<String?, Never>) {
            self.continuation = Mutex(continuation)
        }

        /// Resumes with `value` if nothing did before; returns whether this did.
        @discardableResult
        func resume(returning value: String?) -> Bool {
            guard let continuation = continuation.withLock({ $0.take() }) else { return false }
            continuation.resume(returning: value)
            return true
        }
    }
}
