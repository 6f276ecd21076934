@testable import CloudServer
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import ProcessTestSupport
import SQLiteRecordStore
import ServerStore
import Testing

/// The collection `serve` runs every ten minutes: unused assets, and deletions past the
/// retention (`serve --tombstone-retention-days`).
@Suite struct AssetCollectorTests {
    static let zone = RecordZoneID(zoneName: "Ideas")
    static let day: Int64 = 86_400_000

    @Test("Deletions are forgotten past the retention (90 days unless set), not before: a token from before one then expires, and the record no longer counts")
    func deletionsPastTheRetentionAreForgotten() async throws {
        let clock = ManualClock(start: TestTime.start)
        let store = try SQLiteRecordStore.inMemory(clock: clock.wallClock)
        try await store.createZone(Self.zone, account: "alice")
        let records = ["kept", "gone"].map {
            RemoteRecord(recordType: "Note", recordID: RecordID(recordName: $0, zoneID: Self.zone), fields: ["text": .string($0)])
        }
        _ = try await store.modify(account: "alice", saves: records.map { RecordSave($0, policy: .allKeys) }, deletes: [])
        let before = try await store.fetchChanges(account: "alice", in: Self.zone, since: nil, resultsLimit: 100).token
        _ = try await store.modify(account: "alice", saves: [], deletes: [RecordDeletion(records[1].recordID)])
        let collector = AssetCollector(store: store, clock: clock.wallClock, logger: Logger(label: "test"))
        #expect(collector.tombstoneRetention == .seconds(90 * 86_400))

        clock.advance(by: 89 * Self.day)
        await collector.collect()
        let seen = try await store.fetchChanges(account: "alice", in: Self.zone, since: before, resultsLimit: 100)
        #expect(seen.deleted.map(\.recordID.recordName) == ["gone"])
        #expect(try await store.usage(account: "alice").records == 2)

        clock.advance(by: 2 * Self.day)
        await collector.collect()
        #expect(throws: CloudError.changeTokenExpired) {
            try store.fetchChanges(account: "alice", in: Self.zone, since: before, resultsLimit: 100)
        }
        #expect(try await store.usage(account: "alice").records == 1)
        #expect(try await store.fetchChanges(account: "alice", in: Self.zone, since: nil, resultsLimit: 100).changed.map(\.recordID.recordName) == ["kept"])
    }

    @Test("The retention set is the one kept: one day forgets a deletion two days old and keeps one of an hour")
    func theRetentionSetIsKept() async throws {
        let clock = ManualClock(start: TestTime.start)
        let store = try SQLiteRecordStore.inMemory(clock: clock.wallClock)
        try await store.createZone(Self.zone, account: "alice")
        // Deleted two days and an hour ago, then an hour ago.
        for (name, then) in [("old", 2 * Self.day), ("new", 3_600_000)] {
            let record = RemoteRecord(recordType: "Note", recordID: RecordID(recordName: name, zoneID: Self.zone), fields: [:])
            _ = try await store.modify(account: "alice", saves: [RecordSave(record, policy: .allKeys)], deletes: [])
            _ = try await store.modify(account: "alice", saves: [], deletes: [RecordDeletion(record.recordID)])
            clock.advance(by: then)
        }
        let collector = AssetCollector(store: store, clock: clock.wallClock, logger: Logger(label: "test"), tombstoneRetention: .seconds(86_400))
        await collector.collect()
        let changes = try await store.fetchChanges(account: "alice", in: Self.zone, since: nil, resultsLimit: 100)
        #expect(changes.deleted.map(\.recordID.recordName) == ["new"])
    }
}
