import CloudHTTPClient
import CloudKitModel
import CloudServer
import Foundation
import IdeaBoxFoundation
import PostgresRecordStore
import ServerStore
import Testing

// What the test suites of several targets share to run against `ideabox serve`.

/// The remotes the contract and convergence suites run against.
public enum RemoteKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The SQLite file the clients open themselves.
    case embedded
    /// The same store behind `ideabox serve` on 127.0.0.1, reached by the HTTP client.
    case served
    /// `ideabox serve` with PostgreSQL behind it, reached by the HTTP client.
    case servedPostgres

    public var testDescription: String { rawValue }

    /// The kinds this run can test: all three when a PostgreSQL database is configured
    /// (`.ci/run` starts one, and insists on it), the other two otherwise.
    public static var tested: [RemoteKind] {
        TestPostgres.url == nil ? [.embedded, .served] : allCases
    }
}

/// The PostgreSQL database the contract tests may use, as `.ci/run` gives it.
public enum TestPostgres {
    /// `IDEABOX_TEST_POSTGRES_URL`, such as postgres://ideabox@127.0.0.1:54329/postgres?sslmode=disable.
    public static let url = ProcessInfo.processInfo.environment["IDEABOX_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// Whether this run must test PostgreSQL (`IDEABOX_REQUIRE_POSTGRES=1`, as in CI).
    public static let isRequired = ProcessInfo.processInfo.environment["IDEABOX_REQUIRE_POSTGRES"] == "1"

    /// A new store in a schema of its own, so that tests running at once never meet.
    public static func store(clock: WallClock, maximumRecordsPerRequest: Int) async throws -> PostgresRecordStore {
        try await stores(count: 1, clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)[0]
    }

    /// `count` stores on one new schema, each with its own connections, as `count` server
    /// processes on one database would be.
    public static func stores(count: Int, clock: WallClock, maximumRecordsPerRequest: Int = 200) async throws -> [PostgresRecordStore] {
        guard let url else { throw TestPostgresError.notConfigured }
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var stores: [PostgresRecordStore] = []
        for _ in 0..<count {
            stores.append(
                try await PostgresRecordStore.connect(
                    url: url, schema: schema, clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest,
                    maximumConnections: 2))
        }
        return stores
    }
}

/// Why `TestPostgres` has no store to give.
public enum TestPostgresError: Error, CustomStringConvertible {
    case notConfigured

    public var description: String { "IDEABOX_TEST_POSTGRES_URL is not set" }
}

/// `ideabox serve` on a free port of 127.0.0.1, in this process, stopped when released.
public final class ServedRemote: Sendable {
    private let running: RunningServer
    /// The account's token on this server.
    public let token = AccessToken.generate()
    private let maximumRecordsPerRequest: Int
    private let account: String

    /// The container the served remotes serve: the product's, as `ideabox serve` does.
    public static let container = "iCloud.com.buildwithharry.IdeaBox"

    /// `clock` is the server's: the store's, so that the times of tickets and tokens agree.
    public init(store: any RecordStore, account: String, maximumRecordsPerRequest: Int, clock: WallClock) async throws {
        try await store.addAccessToken(hash: AccessToken.hash(token), account: account)
        let log = RequestLog(clock: clock) { _ in }
        running = try await CloudServer(store: store, host: "127.0.0.1", port: 0, containers: [Self.container], clock: clock, log: log).start()
        self.maximumRecordsPerRequest = maximumRecordsPerRequest
        self.account = account
    }

    // Not `stop()`: waiting here would hold one of the test run's few cooperative threads.
    deinit {
        running.requestStop()
    }

    /// The server's address.
    public var endpoint: WebServicesDatabase.Endpoint {
        WebServicesDatabase.Endpoint(server: URL(string: "http://127.0.0.1:\(running.port)")!, container: Self.container)
    }

    /// A client signed in with the account's token.
    public func client() -> WebServicesDatabase {
        WebServicesDatabase(
            endpoint: endpoint, accountName: account, token: token, timeout: 10,
            maximumRecordsPerRequest: maximumRecordsPerRequest)
    }
}

/// Runs `body` and returns the `CloudError` it threw, or nil if it threw none.
public func cloudError(_ body: () throws -> some Any) -> CloudError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? CloudError
    }
}

/// Awaits `body` and returns the `CloudError` it threw, or nil if it threw none.
public func cloudError(_ body: () async throws -> some Any) async -> CloudError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? CloudError
    }
}
