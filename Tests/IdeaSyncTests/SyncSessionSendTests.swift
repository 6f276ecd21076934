import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import RemoteTestSupport
import Synchronization
import Testing

/// `SyncSession.send`, what a local change runs: the outbox goes out over the change tags
/// the device has, with no fetch first; a `CONFLICT` answer carries the server's record and
/// the conflict rule settles it, field by field, with nothing a person typed lost.
@Suite struct SyncSessionSendTests {
    @Test("A stale edit sent without a fetch: the CONFLICT's record is merged field by field and the merge goes out",
          arguments: RemoteKind.tested)
    func staleEditMergesTheConflictsRecord(remote: RemoteKind) async throws {
        let fixture = try await SyncFixture(remote: remote)
        let (a, b) = (try fixture.device("a"), try fixture.device("b"))
        let idea = try a.repository.addIdea(title: "shared", description: "first")
        _ = try await a.session.run()
        _ = try await b.session.run()
        await fixture.scheduler.advance(by: 1000)
        _ = try b.repository.editIdea(id: idea.id, IdeaChanges(description: "B's description"))
        _ = try await b.session.send()
        await fixture.scheduler.advance(by: 1000)
        _ = try a.repository.editIdea(id: idea.id, IdeaChanges(title: "A's title"))

        let report = try await a.session.send()

        // Edits of different fields do not compete: the record is merged, not a conflict.
        #expect(report.received == 1 && report.conflicts == 0)
        #expect(try a.repository.pendingChangeCount() == 0)
        let merged = try #require(try a.repository.idea(id: idea.id))
        #expect(merged.title == "A's title")
        #expect(merged.description == "B's description")
        #expect(try await fixture.remoteIdeas().map(\.title) == ["A's title"])
        #expect(try await fixture.remoteIdeas().map(\.description) == ["B's description"])
        _ = try await b.session.run()
        #expect(try b.snapshots() == a.snapshots())
    }

    @Test("An older edit sent without a fetch loses to the CONFLICT's newer record, and stays in history", arguments: RemoteKind.tested)
    func olderEditLosesToTheConflictsRecord(remote: RemoteKind) async throws {
        let fixture = try await SyncFixture(remote: remote)
        let (a, b) = (try fixture.device("a"), try fixture.device("b"))
        let idea = try a.repository.addIdea(title: "shared")
        _ = try await a.session.run()
        _ = try await b.session.run()
        await fixture.scheduler.advance(by: 1000)
        _ = try a.repository.editIdea(id: idea.id, IdeaChanges(title: "older, from A"))
        await fixture.scheduler.advance(by: 1000)
        let newer = try b.repository.editIdea(id: idea.id, IdeaChanges(title: "newer, from B"))
        _ = try await b.session.send()

        let report = try await a.session.send()

        #expect(report.conflicts == 1)
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try a.snapshots() == [IdeaSnapshot(newer)])
        let conflict = try #require(try a.repository.conflicts().first)
        #expect(conflict.resolution == .remote)
        #expect(conflict.local?.title == "older, from A")
    }

    @Test("A send that fails keeps the change queued, and the next one sends it")
    func failedSendKeepsTheChange() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        _ = try await a.session.run()
        _ = try a.repository.addIdea(title: "typed while offline")
        try fixture.cloud.network.setOffline(true, device: "a")
        await #expect(throws: SyncFailure.self) { try await a.session.send() }
        #expect(try a.repository.pendingChangeCount() == 1)
        try fixture.cloud.network.setOffline(false, device: "a")
        _ = try await a.session.send()
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try await fixture.remoteIdeas().map(\.title) == ["typed while offline"])
    }

    @Test("A device that never fetched syncs whole on its first send")
    func firstSendFetchesFirst() async throws {
        let fixture = try SyncFixture()
        let (a, b) = (try fixture.device("a"), try fixture.device("b"))
        _ = try a.repository.addIdea(title: "from A")
        _ = try await a.session.run()
        _ = try b.repository.addIdea(title: "from B")
        _ = try await b.session.send()
        #expect(try b.ideas().map(\.title).sorted() == ["from A", "from B"])
    }

    @Test("Sessions of one process that send at once each send at once, none waiting for a thread behind the others' answers")
    func sendsOfManySessionsGoOutTogether() async throws {
        let fixture = try SyncFixture()
        // More than the cooperative pool has threads (one a core): a send that held its thread
        // while it waited for the others would never meet them.
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 4
        let meeting = Meeting(count: count, patience: .seconds(5))
        let devices = try (0..<count).map { index in
            try fixture.device("d\(index)", client: { HookedDatabase($0, before: { if case .modify = $0 { await meeting.meet() } }) })
        }
        for (index, device) in devices.enumerated() {
            _ = try await device.session.run()
            _ = try device.repository.addIdea(title: "from \(index)")
        }
        meeting.arm()
        let failed = await withTaskGroup(of: Int.self) { sends in
            for device in devices {
                let session = device.session
                sends.addTask {
                    do { _ = try await session.send() } catch { return 1 }
                    return 0
                }
            }
            return await sends.reduce(0, +)
        }

        #expect(meeting.mostAtOnce == count)
        #expect(failed == 0)
        #expect(try await fixture.remoteIdeas().count == count)
    }
}
