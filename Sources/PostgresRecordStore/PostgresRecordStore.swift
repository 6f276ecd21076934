import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// `serve`'s records and tokens in PostgreSQL, for any number of `ideabox serve` processes
/// on any number of machines: they behave as one server.
///
/// Every write takes the rows of the zones it touches with `FOR UPDATE`, in id order, before
/// it reads or writes a record, so writers of one zone take turns: each gets the next change
/// sequences, its conflict checks see the latest committed records, and a change token
/// (a zone sequence) never skips a change that commits later. A modify is one transaction,
/// so it applies whole or not at all. Reads run in one `REPEATABLE READ` snapshot.
public final class PostgresRecordStore: RecordStore {
    public let maximumRecordsPerRequest: Int
    /// The pool, and the watch that closes it while the database does not answer.
    let connections: PostgresConnections
    let clock: WallClock
    let logger: Logger
    /// What makes the tokens and change tags it hands out, from the database's `serverSecret`.
    let positions: PositionKeys
    /// The channel changes are announced on: `ideabox_changes`, or the schema's own name for
    /// a store kept in a schema, so that stores in other schemas of the database (tests side
    /// by side) never hear each other's changes.
    let changeChannel: String
    /// The fills of queryable fields running in this process.
    public let queryableFills = QueryableFills()

    init(
        connections: PostgresConnections, clock: WallClock, maximumRecordsPerRequest: Int, positions: PositionKeys, schema: String?,
        logger: Logger
    ) {
        self.connections = connections
        changeChannel = schema ?? "ideabox_changes"
        self.clock = clock
        self.positions = positions
        self.maximumRecordsPerRequest = maximumRecordsPerRequest
        self.logger = logger
    }

    deinit {
        connections.close()
    }

    /// Whether PostgreSQL answers: the server logs and counts its outages.
    public var availability: StoreAvailability? { connections.availability }

    /// Connects to the database `url` names (`postgres://user:password@host:port/database`)
    /// and brings its schema up to date; throws `PostgresStoreError` if it cannot.
    /// `schema` keeps the tables in a schema of that name (created if missing) instead of
    /// `public`, so that tests can share one database. Each store keeps `maximumConnections`
    /// connections open (`keepOpen`).
    public static func connect(
        url: String, schema: String? = nil, clock: WallClock,
        maximumRecordsPerRequest: Int = CloudKitLimits.maximumOperations, maximumConnections: Int = 16
    ) async throws -> PostgresRecordStore {
        let location = try PostgresURL(url)
        if let schema {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw PostgresStoreError.invalidURL("The schema must be lower-case letters, digits and _, not \"\(schema)\".")
            }
        }
        let startup = [("application_name", applicationName(schema: schema))] + (schema.map { [("options", "-c search_path=\($0)")] } ?? [])
        var logger = Logger(label: "ideabox.serve.postgres")
        logger.logLevel = .error

        // The migration waits on an advisory lock that another store may hold mid-migration:
        // on the blocking executor, neither depends on the cooperative pool, whose few
        // threads a caller that blocks (a synchronous client waiting on its request) may be
        // holding.
        let secret: Data = try await withTaskExecutorPreference(BlockingTaskExecutor.shared) {
            try await migrateAndReadSecret(location: location, schema: schema, startup: startup, clock: clock, logger: logger)
        }

        var configuration = location.clientConfiguration
        configuration.options.additionalStartupParameters = startup
        Self.keepOpen(maximumConnections, in: &configuration.options)
        var look = try location.connectionConfiguration()
        look.options.additionalStartupParameters = startup
        return PostgresRecordStore(
            connections: PostgresConnections(configuration: configuration, look: look, logger: logger), clock: clock,
            maximumRecordsPerRequest: maximumRecordsPerRequest, positions: PositionKeys(serverSecret: secret), schema: schema,
            logger: logger)
    }

    /// The name a store's connections give PostgreSQL (`application_name`, which
    /// `pg_stat_activity` shows): `ideabox serve`, and the schema's name after it for a store
    /// kept in a schema.
    static func applicationName(schema: String?) -> String {
        schema.map { "ideabox serve \($0)" } ?? "ideabox serve"
    }

    /// Sets the pool to open `count` connections and keep them, with no keep-alive query.
    ///
    /// The pool's default parks every connection it gets back with a timer or two (its idle
    /// timeout, 60 s, and its keep-alive, 30 s), cancelled when the connection is next
    /// leased: that is, around every query of a busy server. A cancelled `Task.sleep` is
    /// woken at once, but its sleeping task and Dispatch timer stay allocated until the time
    /// it was due (9.5 MiB of them at the peak of 2,000 polls starting, in heaptrack: glibc's
    /// heap keeps that high-water mark), and making and cancelling them costs four tasks a
    /// query. A pool of connections that are never idle long needs neither timer: a connection
    /// PostgreSQL closes is replaced as soon as the pool hears of it, and a query on one that
    /// died unheard fails as `serverDatabaseUnavailable`, which clients retry.
    static func keepOpen(_ count: Int, in options: inout PostgresClient.Configuration.Options) {
        options.maximumConnections = count
        options.minimumConnections = count
        options.keepAliveBehavior = nil
    }

    /// Brings the schema up to date on one connection of its own and reads the server's secret.
    private static func migrateAndReadSecret(
        location: PostgresURL, schema: String?, startup: [(String, String)], clock: WallClock, logger: Logger
    ) async throws -> Data {
        // One connection of its own first, given a few seconds, so that a wrong address, user,
        // password or database fails now with PostgreSQL's own words (the pool would retry
        // quietly for a minute); the schema is brought up to date on it.
        do {
            var configuration = try location.connectionConfiguration()
            configuration.options.connectTimeout = .seconds(5)
            configuration.options.additionalStartupParameters = startup
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                try await migrate(connection, schema: schema, clock: clock, logger: logger)
                let secret = try await serverSecret(connection, logger: logger)
                try? await connection.close()
                return secret
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            throw PostgresStoreError.unreachable(Self.describe(error))
        }
    }

    // MARK: Connections and transactions

    /// Runs `body` on a pooled connection, outside a transaction.
    @discardableResult
    func run<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withTaskExecutorPreference(BlockingTaskExecutor.shared) {
            try await retrying {
                try await connections.withConnection { connection in try await body(connection) }
            }
        }
    }

    /// Runs `body` in a transaction that commits if it returns and rolls back if it throws
    /// (rethrowing its error as is); `readOnly` reads one snapshot.
    func transaction<Result: Sendable>(
        readOnly: Bool = false, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withTaskExecutorPreference(BlockingTaskExecutor.shared) {
            try await retrying {
                try await connections.withConnection { connection in
                    try await Self.transaction(on: connection, readOnly: readOnly, logger: logger, body)
                }
            }
        }
    }

    nonisolated(nonsending) static func transaction<Result: Sendable>(
        on connection: PostgresConnection, readOnly: Bool, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await connection.query(
            readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN ISOLATION LEVEL READ COMMITTED",
            logger: logger)
        let result: Result
        do {
            result = try await body(connection)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
        try await connection.query("COMMIT", logger: logger)
        return result
    }

    /// Runs `body` again (up to twice more) when PostgreSQL gave up on it for a deadlock or
    /// a serialization failure; a lost or refused connection, or a database shutting down,
    /// is `serverDatabaseUnavailable` (503 with `retryAfter`, which clients wait out), and
    /// makes the store look at once whether the database is down.
    func retrying<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                attempt += 1
                switch PostgresFailure(error) {
                case .rerun where attempt < 3:
                    continue
                case .rerun:
                    throw CloudError.zoneBusy(retryAfter: 1)
                case let .unavailable(cause):
                    connections.connectionFailed(cause)
                    throw connections.availability.refusal
                case .other:
                    throw error
                }
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        if error.code == .sslUnsupported { return "the server does not offer TLS, which sslmode=require asks for." }
        if let underlying = error.underlying { return String(describing: underlying) }
        return error.code.description
    }
}

/// Why the PostgreSQL store could not open.
public enum PostgresStoreError: Error, CustomStringConvertible {
    /// The URL is not one the store can use.
    case invalidURL(String)
    /// The database refused or could not be reached.
    case unreachable(String)

    public var description: String {
        switch self {
        case let .invalidURL(reason): reason
        case let .unreachable(reason): "Cannot use the PostgreSQL database: \(reason)"
        }
    }
}
