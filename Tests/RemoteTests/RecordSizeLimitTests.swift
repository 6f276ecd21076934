import CloudKitModel
import Foundation
import RemoteTestSupport
import ServerStore
import Testing

/// Issue 60: a record holds at most 1 MB of fields as stored, not only as sent, so that the
/// one record a page may hold past its budget is bounded too: merged updates of 700 KB each
/// cannot grow one record past it.
@Suite(.serialized) struct RecordSizeLimitTests {
    @Test("An update whose fields merged into the stored record's pass 1 MB fails limitExceeded and changes nothing; one that replaces them is saved", arguments: RemoteKind.tested)
    func mergesCannotGrowARecordPastTheLimit(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let (store, account) = (fixture.store, CloudFixture.account)
        try await store.createZone(CloudFixture.zone, account: account)
        let recordID = RecordID(recordName: "grown", zoneID: CloudFixture.zone)
        func save(_ fields: [String: FieldValue], merging: Bool) async throws -> ModifyResult {
            let record = RemoteRecord(recordType: "Note", recordID: recordID, fields: fields)
            return try await store.modify(
                account: account, saves: [RecordSave(record, policy: .allKeys, mergesFields: merging)], deletes: [], atomic: false)
        }
        let first = String(repeating: "a", count: 700_000), second = String(repeating: "b", count: 700_000)
        #expect(try await save(["a": .string(first)], merging: false).failures.isEmpty)
        let merged = try await save(["b": .string(second)], merging: true)
        #expect(merged.failures[recordID] == .limitExceeded && merged.saved.isEmpty)
        let stored = try await store.records(account: account, in: CloudFixture.zone, named: ["grown"], byteBudget: PageBudget.byteBudget)
        #expect(stored.records.first?.fields == ["a": .string(first)])
        #expect(try await save(["b": .string(second)], merging: false).failures.isEmpty)
        #expect(RecordSizeLimit.refusal(storing: RemoteRecord(recordType: "Note", recordID: recordID, fields: ["x": .string(String(repeating: "x", count: 1 << 20))])) == .limitExceeded)
    }
}
