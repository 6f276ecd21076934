import CloudKitModel
import IdeaBoxFoundation
import Logging
@testable import PostgresRecordStore
import ProcessTestSupport
import RemoteTestSupport
import ServerStore
import Synchronization
import Testing

/// The PostgreSQL store's connections when the database stops and starts again under it,
/// on a cluster of the test's own: calls are refused as the server's database not
/// answering (never left waiting, never an internal error), the outage is told once each
/// way, and the store answers again within a look of the database's return.
@Suite struct PostgresConnectionsTests {
    final class Told: Sendable {
        let changes = Mutex<[StoreAvailability.Change]>([])
    }

    @Test("A socket's failure is said in the system's few words with the address; anything else as the driver says it")
    func causes() {
        struct Nested: Error, CustomStringConvertible {
            var description: String
        }
        let refused = Nested(description: "Connection errors: SingleConnectionFailure(target: [IPv4]127.0.0.1/127.0.0.1:55601, error: connection reset (error set): Connection refused) (errno: 111))")
        #expect(PostgresConnections.cause(of: refused, at: "127.0.0.1:55601") == "connection refused at 127.0.0.1:55601")
        #expect(PostgresConnections.cause(of: Nested(description: "the database system is starting up"), at: "h:1") == "the database system is starting up")
    }

    @Test("Stopped: refused as serverDatabaseUnavailable and told down once; started: answers within a look, told back once",
          .enabled(if: PostgresCluster.isTested, "needs PostgreSQL installed"))
    func stoppedAndStartedAgain() async throws {
        let cluster = try #require(try await OwnThread.run({ try PostgresCluster.started() }))
        defer { cluster.close() }
        let store = try await PostgresRecordStore.connect(url: cluster.url, clock: .system)
        let availability = try #require(store.availability)
        let told = Told()
        availability.observe { change in told.changes.withLock { $0.append(change) } }
        _ = try await store.serverSecret()

        try await OwnThread.run { try cluster.stop() }
        await #expect(throws: CloudError.serverDatabaseUnavailable(retryAfter: 2)) { try await store.serverSecret() }
        try await Poll.until("the store is found down", timeout: .seconds(8), every: .milliseconds(50)) { availability.isDown }
        for _ in 1...3 {
            await #expect(throws: CloudError.serverDatabaseUnavailable(retryAfter: 2)) { try await store.recordCount(account: "alice") }
        }

        try await OwnThread.run { try cluster.start() }
        try await Poll.until("the store answers again", timeout: .seconds(3), every: .milliseconds(50)) {
            (try? await store.serverSecret()) != nil
        }
        #expect(!availability.isDown)
        let changes = told.changes.withLock { $0 }
        #expect(changes.count == 2, "\(changes)")
        guard case .wentDown = changes.first, case .cameBack = changes.last else {
            Issue.record("expected down then back: \(changes)")
            return
        }
    }

    @Test("Calls that wait behind a busy pool are a queue, not a pool stuck: a look keeps the pool, and the call holding its one connection ends its work",
          .enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"), .timeLimit(.minutes(10)))
    func aBusyPoolIsKept() async throws {
        let location = try PostgresURL(try #require(TestPostgres.url))
        var configuration = location.clientConfiguration
        PostgresRecordStore.keepOpen(1, in: &configuration.options)
        // The watch looks only when the test says (its timer is an hour).
        let connections = PostgresConnections(
            configuration: configuration, look: try location.connectionConfiguration(), logger: Logger(label: "test"),
            connectionWait: .milliseconds(100), lookInterval: .seconds(3600))
        defer { connections.close() }
        let working = Latch()
        defer { working.open() }
        let holding = Task {
            try await connections.withConnection { connection in
                await working.opened()
                return try await connection.query("SELECT 1", logger: Logger(label: "test")).collect().count
            }
        }
        try await Poll.until("the first call holds the pool's one connection") { working.waiting == 1 }
        let waiting = Task {
            try await connections.withConnection { connection in
                try await connection.query("SELECT 2", logger: Logger(label: "test")).collect().count
            }
        }
        try await Poll.until("the second call has waited past its limit behind the first") {
            connections.counts.longestWait > .milliseconds(200)
        }
        await connections.look()
        #expect(connections.counts.opened == 1)
        working.open()
        #expect(try await holding.valueUnlessCancelled == 1)
        #expect(try await waiting.valueUnlessCancelled == 1)
        #expect(connections.counts.opened == 1)
    }
}
