import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Testing

/// Records and the small values around them survive JSON, as a client may store them.
@Suite struct RemoteRecordTests {
    @Test("A record with server bookkeeping survives a JSON round trip")
    func recordRoundTrip() throws {
        let record = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: "A1", zoneID: RecordZoneID(zoneName: "Ideas")),
            fields: ["title": .string("x"), "version": .int64(2)], changeTag: "7.3",
            creationDate: Timestamp(milliseconds: 1), modificationDate: Timestamp(milliseconds: 2))
        #expect(try JSONDecoder().decode(RemoteRecord.self, from: JSONEncoder().encode(record)) == record)
    }

    @Test("A new record has no change tag and no server times; the subscript reads and writes fields")
    func newRecord() {
        var record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "A1", zoneID: RecordZoneID(zoneName: "Ideas")))
        record["title"] = .string("x")
        #expect(record["title"] == .string("x"))
        #expect(record["missing"] == nil)
        #expect(record.changeTag == nil && record.creationDate == nil && record.modificationDate == nil)
        #expect(record.recordID.description == "Ideas/A1")
    }

    @Test("Change tokens, account statuses and deleted records survive a JSON round trip")
    func smallValues() throws {
        let token = ChangeToken(data: Data("z1:3:9".utf8))
        #expect(try JSONDecoder().decode(ChangeToken.self, from: JSONEncoder().encode(token)) == token)
        #expect(ChangeToken(data: token.data) == token)
        for status in [AccountStatus.available(accountName: "default"), .noAccount] {
            #expect(try JSONDecoder().decode(AccountStatus.self, from: JSONEncoder().encode(status)) == status)
        }
        let deleted = DeletedRecord(recordID: RecordID(recordName: "A", zoneID: RecordZoneID(zoneName: "Z")), recordType: "Idea")
        #expect(try JSONDecoder().decode(DeletedRecord.self, from: JSONEncoder().encode(deleted)) == deleted)
    }
}
