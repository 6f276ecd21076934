import CloudKitModel
import Foundation
import PostgresRecordStore
import ProcessTestSupport
import RemoteTestSupport
import ServerStore
import Synchronization
import Testing

/// A change is announced (`NOTIFY`) only to the processes that hold polls of its account
/// (`keepListening`): another process listed for the account hears it; an account nobody else
/// listens for, the writer's own listing, and an expired listing send nothing. Two stores
/// with pools of their own stand for two processes.
@Suite(.enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
struct PostgresChangeListenerTests {
    private static let zone = RecordZoneID(zoneName: "Ideas")

    @Test("Only the accounts another process listens for are announced, in the order they changed")
    func announcedOnlyWhereListened() async throws {
        let stores = try await TestPostgres.stores(count: 2, clock: .system)
        let heard = Heard()
        // What b hears past its LISTEN probes (zone Probe), which may still be arriving.
        let told = { heard.lines.filter { !$0.hasSuffix(" Probe") } }
        let listening = Task {
            try await stores[1].listenForChanges { process, account, zone in
                heard.append("\(process) \(account) \(zone.zoneName)")
            }
        }
        defer { listening.cancel() }
        // Process b holds polls of alice, and of carol only for no time at all.
        try await stores[1].keepListening(account: "alice", process: "b", for: .seconds(600))
        try await stores[1].keepListening(account: "carol", process: "b", for: .zero)
        // Until b's LISTEN is in place, announcements pass it by: announce until it hears one.
        try await Poll.until("b hears a probe") {
            try await stores[0].announceChanges(account: "alice", zones: [RecordZoneID(zoneName: "Probe")], from: "a")
            return !heard.lines.isEmpty
        }

        try await stores[0].announceChanges(account: "bob", zones: [Self.zone], from: "a")
        try await stores[0].announceChanges(account: "carol", zones: [Self.zone], from: "a")
        try await stores[1].announceChanges(account: "alice", zones: [Self.zone], from: "b")
        try await stores[0].announceChanges(account: "alice", zones: [RecordZoneID(zoneName: "Library")], from: "a")
        // Announcements reach a listener in the order they were made: had any of the first
        // three been sent, it would come before the last.
        try await Poll.until("b hears alice's change") { told().count >= 1 }
        #expect(told() == ["a alice Library"])

        // A listing renewed after it expired counts again.
        try await stores[1].keepListening(account: "carol", process: "b", for: .seconds(600))
        try await stores[0].announceChanges(account: "carol", zones: [Self.zone], from: "a")
        try await Poll.until("b hears carol's change") { told().count >= 2 }
        #expect(told() == ["a alice Library", "a carol Ideas"])
    }

    @Test("A store in another schema of the database is never heard: its changes are of other accounts")
    func otherSchemasAreNotHeard() async throws {
        let stores = try await TestPostgres.stores(count: 2, clock: .system)
        let elsewhere = try await TestPostgres.stores(count: 1, clock: .system)[0]
        let heard = Heard()
        let listening = Task {
            try await stores[1].listenForChanges { process, account, zone in
                heard.append("\(process) \(account) \(zone.zoneName)")
            }
        }
        defer { listening.cancel() }
        try await stores[1].keepListening(account: "alice", process: "b", for: .seconds(600))
        // Another deployment's alice, listened for by its own process b.
        try await elsewhere.keepListening(account: "alice", process: "b", for: .seconds(600))
        try await Poll.until("b hears a probe") {
            try await stores[0].announceChanges(account: "alice", zones: [RecordZoneID(zoneName: "Probe")], from: "a")
            return !heard.lines.isEmpty
        }

        // Announcements reach a listener in the order they committed: had the other schema's
        // reached b, it would come before this schema's.
        try await elsewhere.announceChanges(account: "alice", zones: [RecordZoneID(zoneName: "Elsewhere")], from: "a")
        try await stores[0].announceChanges(account: "alice", zones: [Self.zone], from: "a")
        try await Poll.until("b hears its own schema's change") { heard.lines.contains("a alice Ideas") }
        #expect(heard.lines.filter { !$0.hasSuffix(" Probe") } == ["a alice Ideas"])
    }
}

/// What a listener has heard, one line an announcement, from any thread.
private final class Heard: Sendable {
    private let heard = Mutex<[String]>([])

    var lines: [String] { heard.withLock { $0 } }

    func append(_ line: String) {
        heard.withLock { $0.append(line) }
    }
}
