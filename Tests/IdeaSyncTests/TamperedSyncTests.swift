import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import RemoteTestSupport
import Synchronization
import Testing

/// The real sync engine over sealed records and a hostile remote: a flipped byte, two sealed
/// values swapped, a record moved to another zone and an older sealed version served again
/// are each refused with a line in the sync log; nothing here is lost or changed, and the
/// other records of the same page arrive.
@Suite("Tampering caught through sync")
struct TamperedSyncTests {
    private let fixture: SyncFixture
    private let sealer: RecordSealer

    init() throws {
        fixture = try SyncFixture()
        let made = try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
        sealer = RecordSealer(keyring: made.keyring, containerID: "iCloud.com.example.IdeaBox", hiddenNameZones: [], random: .seeded(2))
    }

    /// A device whose records are sealed, over a remote that tampers when told; what its
    /// sealed layer refuses goes to its sync log, as the app's wiring does.
    private func device(_ name: String) throws -> (device: Device, remote: TamperingDatabase) {
        let refusals = RefusalSink()
        var hostile: TamperingDatabase?
        let device = try fixture.device(name, ideaIds: .counting(from: name == "writer" ? 1 : 1000)) { base in
            let remote = TamperingDatabase(base: base)
            hostile = remote
            return SealedDatabase(base: remote, sealer: sealer, report: refusals.report)
        }
        refusals.attach(device.repository, clock: fixture.scheduler.clock)
        return (device, hostile!)
    }

    /// The raw (sealed) record of `idea` on the remote.
    private func sealedRecord(of idea: Idea) throws -> RemoteRecord {
        try fixture.cloud.network.signIn(device: "observer", account: SimulatedCloud.defaultAccount)
        let records = try fixture.cloud.database(forDevice: "observer").records(in: SyncSession.zone, ofType: RecordSealer.sealedType(of: SyncSession.recordType))
        return try #require(records.first { $0.recordID.recordName == idea.id.lowercasedString })
    }

    @Test func aFlippedByteSwappedValuesAndAMovedRecordAreRefusedAndTheRestArrives() throws {
        let (writer, _) = try device("writer")
        let (reader, hostile) = try device("reader")
        let names = ["good one", "flipped", "swapped one", "swapped two", "moved", "good two"]
        var ideas = try names.map { try writer.repository.addIdea(title: $0, description: "秘密 \($0)") }
        _ = try writer.session.run()
        _ = try reader.session.run()
        #expect(Set(try reader.ideas().map(\.title)).isSuperset(of: names))

        fixture.scheduler.advance(by: 1000)
        ideas = try ideas.map { try writer.repository.editIdea(id: $0.id, IdeaChanges(title: $0.title + ", edited")) }
        _ = try writer.session.run()
        let before = try reader.snapshots()
        let historyBefore = try ideas.map { try reader.repository.history(of: $0.id) }
        let byName = Dictionary(uniqueKeysWithValues: zip(names, ideas.map { $0.id.lowercasedString }))
        hostile.tamper { records in
            var records = Dictionary(uniqueKeysWithValues: records.map { ($0.recordID.recordName, $0) })
            if case .bytes(var blob)? = records[byName["flipped"]!]?.fields[RecordSealer.sealedField] {
                blob[blob.startIndex + 30] ^= 0x04
                records[byName["flipped"]!]?.fields[RecordSealer.sealedField] = .bytes(blob)
            }
            let one = records[byName["swapped one"]!]!.fields, two = records[byName["swapped two"]!]!.fields
            records[byName["swapped one"]!]?.fields = two
            records[byName["swapped two"]!]?.fields = one
            records[byName["moved"]!]?.recordID.zoneID = RecordZoneID(zoneName: "Archive")
            return Array(records.values)
        }
        let report = try reader.session.run()

        #expect(report.received == 2)
        let after = Dictionary(uniqueKeysWithValues: try reader.snapshots().map { ($0.id.lowercasedString, $0) })
        #expect(after[byName["good one"]!]?.title == "good one, edited")
        #expect(after[byName["good two"]!]?.title == "good two, edited")
        for name in ["flipped", "swapped one", "swapped two", "moved"] {
            #expect(after[byName[name]!] == before.first { $0.id.lowercasedString == byName[name]! }, "\(name) changed here")
        }
        #expect(try ideas.map { try reader.repository.history(of: $0.id) }.enumerated().allSatisfy { index, history in
            index == 0 || index == 5 || history == historyBefore[index]
        })
        #expect(try reader.repository.conflicts().isEmpty)
        let refused = try reader.repository.syncLog().filter { $0.kind == .warning }.map(\.message)
        #expect(refused.count == 4)
        #expect(refused.allSatisfy { $0.hasSuffix("its seal does not verify (altered, swapped or moved).") })
        #expect(refused.contains { $0.contains("Archive/\(byName["moved"]!)") })
        #expect(try reader.repository.syncMetadata().lastSyncError == nil)

        // Honest again, the next sync from scratch brings the edits: nothing was lost on the way.
        hostile.behave()
        _ = try writer.session.run()
        fixture.scheduler.advance(by: 1000)
        for idea in ideas { _ = try writer.repository.editIdea(id: idea.id, IdeaChanges(description: "again")) }
        _ = try writer.session.run()
        _ = try reader.session.run()
        #expect(Set(try reader.ideas().map(\.title)).isSuperset(of: names.map { $0 + ", edited" }))
    }

    @Test func anOlderSealedVersionServedAgainIsRefusedLoggedAndNothingHereChanges() throws {
        let (writer, _) = try device("writer")
        let (reader, hostile) = try device("reader")
        let idea = try writer.repository.addIdea(title: "Plan the trip", description: "first plan")
        _ = try writer.session.run()
        let first = try sealedRecord(of: idea)
        _ = try reader.session.run()
        fixture.scheduler.advance(by: 1000)
        let edited = try writer.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip to 台南", description: "second plan"))
        _ = try writer.session.run()
        _ = try reader.session.run()
        #expect(try reader.repository.idea(id: idea.id)?.title == "Plan the trip to 台南")
        let historyBefore = try reader.repository.history(of: idea.id)

        // Something else changes, and the remote serves the first version beside it.
        let other = try writer.repository.addIdea(title: "Buy stamps")
        _ = try writer.session.run()
        hostile.tamper { records in records + [first] }
        let report = try reader.session.run()

        #expect(try reader.repository.idea(id: other.id)?.title == "Buy stamps")
        #expect(report.received == 1)
        #expect(try reader.snapshots().first { $0.id == idea.id } == IdeaSnapshot(edited))
        #expect(try reader.repository.history(of: idea.id) == historyBefore)
        #expect(try reader.repository.conflicts().isEmpty)
        let lines = try reader.repository.syncLog().filter { $0.kind == .warning }
        #expect(lines.map(\.message) == [
            "Refused an older version of “Plan the trip to 台南” (\(idea.id.lowercasedString.prefix(8))) from the remote "
                + "(replayed, or the server was restored from a backup): nothing here changed, and this device's version is sent again."
        ])
        #expect(lines.first.map { SyncLogText.message($0, .traditionalChinese) }?.hasPrefix("已拒絕遠端送來的「Plan the trip to 台南」") == true)
        #expect(try reader.repository.pendingChangeCount() == 0)
        #expect(try sealedRecord(of: idea).changeTag != first.changeTag)
    }

    @Test func aServerRestoredFromAnOlderCopyGetsThePresentBack() throws {
        let (writer, _) = try device("writer")
        let (reader, _) = try device("reader")
        let idea = try writer.repository.addIdea(title: "Plan the trip")
        _ = try writer.session.run()
        let first = try sealedRecord(of: idea)
        _ = try reader.session.run()
        fixture.scheduler.advance(by: 1000)
        let edited = try writer.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip to 台南"))
        _ = try writer.session.run()
        _ = try reader.session.run()

        // The operator puts the first version back (a restore): a new tag, the old sealed value.
        fixture.scheduler.advance(by: 1000)
        var restored = first
        restored.changeTag = try sealedRecord(of: idea).changeTag
        _ = try fixture.cloud.database(forDevice: "observer").modify(saving: [restored], deleting: [], savePolicy: .ifServerRecordUnchanged)
        _ = try reader.session.run()

        #expect(try reader.snapshots() == [IdeaSnapshot(edited)])
        _ = try writer.session.run()
        #expect(try writer.snapshots() == [IdeaSnapshot(edited)])
        #expect(try writer.repository.syncLog().allSatisfy { $0.kind != .warning })
    }

    @Test func anOlderButConcurrentEditFromAnotherDeviceStillMergesFieldByField() throws {
        let (writer, _) = try device("writer")
        let (reader, _) = try device("reader")
        let idea = try writer.repository.addIdea(title: "Plan the trip", description: "by train")
        _ = try writer.session.run()
        _ = try reader.session.run()

        // The writer's edit of the description is older than the reader's edit of the title,
        // which the reader has not sent yet: the remote's version is older overall, yet new
        // in one field.
        fixture.scheduler.advance(by: 1000)
        _ = try writer.repository.editIdea(id: idea.id, IdeaChanges(description: "by bus"))
        fixture.scheduler.advance(by: 1000)
        _ = try reader.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip to 台南"))
        _ = try writer.session.run()
        _ = try reader.session.run()
        _ = try writer.session.run()

        for device in [writer, reader] {
            let merged = try #require(try device.repository.idea(id: idea.id))
            #expect(merged.title == "Plan the trip to 台南")
            #expect(merged.description == "by bus")
            #expect(try device.repository.syncLog().allSatisfy { $0.kind != .warning })
        }
    }

    @Test func anOlderEditOfTheSameFieldMadeBeforeSeeingThisDevicesPendingOneGoesThroughTheConflictRule() throws {
        let (writer, _) = try device("writer")
        let (reader, _) = try device("reader")
        let idea = try writer.repository.addIdea(title: "Plan the trip")
        _ = try writer.session.run()
        _ = try reader.session.run()

        fixture.scheduler.advance(by: 1000)
        let older = try writer.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip, writer"))
        fixture.scheduler.advance(by: 1000)
        let newer = try reader.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip, reader"))
        _ = try writer.session.run()
        let report = try reader.session.run()

        #expect(report.conflicts == 1)
        #expect(try reader.snapshots() == [IdeaSnapshot(newer)])
        #expect(try reader.repository.history(of: idea.id).contains { $0.title == older.title })
        #expect(try reader.repository.syncLog().allSatisfy { $0.kind != .warning })
    }
}

/// Where a sealed layer's refusals go: the device's sync log, one warning line each.
private final class RefusalSink: Sendable {
    private let target = Mutex<(IdeaRepository, WallClock)?>(nil)

    func attach(_ repository: IdeaRepository, clock: WallClock) {
        target.withLock { $0 = (repository, clock) }
    }

    var report: @Sendable (OpenFailure) -> Void {
        { failure in
            guard let (repository, clock) = self.target.withLock({ $0 }) else { return }
            try? repository.logSyncEvent(.warning, english: failure.description, chinese: failure.description, at: clock.now())
        }
    }
}
