import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import RemoteTestSupport
@testable import SQLiteRecordStore
@testable import ServerStore
import Testing

/// Sync tokens and change tags (`PositionKeys`) reveal nothing of other accounts: no zone row
/// id, no count, no time; those of the release before are still read from devices.
@Suite struct PositionKeysTests {
    static let ideas = RecordZoneID(zoneName: "Ideas")
    static let second = RecordZoneID(zoneName: "Second")

    @Test("A change tag is spelled in base64url without padding exactly as Foundation's base64 with +, / and = replaced spelled it")
    func changeTagSpelling() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 3, 15, 16, 17, 32] {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let expected = Data(bytes).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                #expect(PositionKeys.base64URL(bytes) == expected, "\(bytes)")
            }
        }
        let keys = PositionKeys(serverSecret: Data(repeating: 7, count: 32))
        // HKDF-SHA256 of the secret for `changeTagInfo`, then HMAC-SHA256 of the row id and the
        // sequence (big-endian), its first 16 bytes: computed apart, with Python's hmac.
        #expect(keys.changeTag(ZonePosition(zoneRowID: 3, sequence: 9)) == "Fx3xjmj03pPGUABCaDRqwQ")
        #expect(keys.changeTag(ZonePosition(zoneRowID: 3, sequence: 9)) != keys.changeTag(ZonePosition(zoneRowID: 3, sequence: 10)))
    }

    @Test(
        "An account's tokens and tags keep one form whatever another account makes between its requests, and hold its zone's row id in no form",
        arguments: RemoteKind.tested)
    func tokensAndTagsRevealNothingOfOthers(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        try await store.createZone(Self.ideas, account: "ann")
        var tags = [try await Self.save("r1", in: Self.ideas, account: "ann", store: store)]
        // Ben makes 50 zones and 50 records between two of ann's requests.
        for index in 0..<50 { try await store.createZone(RecordZoneID(zoneName: "Z\(index)"), account: "ben") }
        for index in 0..<50 { _ = try await Self.save("b\(index)", in: RecordZoneID(zoneName: "Z0"), account: "ben", store: store) }
        try await store.createZone(Self.second, account: "ann")
        tags.append(try await Self.save("r2", in: Self.second, account: "ann", store: store))
        tags.append(try await Self.save("r1", in: Self.ideas, account: "ann", store: store))
        let tokens = try await store.zoneTokens(account: "ann")
        let changes = try await store.fetchChanges(account: "ann", in: Self.second, since: nil, resultsLimit: 10)

        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for tag in tags { #expect(tag.count == 22 && tag.allSatisfy(alphabet.contains), "\(tag)") }
        for token in Array(tokens.values) + [changes.token] {
            #expect(token.data.count == 42 && token.data.starts(with: Data("z2".utf8)), "\(token.data.base64EncodedString())")
        }
        // Where the row ids can be read (a SQLite store), none is in a token or tag, as text or bytes.
        guard let sqlite = store as? SQLiteRecordStore else { return }
        let rowID = try #require(try await sqlite.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM zone WHERE account = 'ann' AND name = 'Second'")
        })
        #expect(rowID > 50)
        let encodings = [
            withUnsafeBytes(of: rowID.bigEndian) { Data($0) }, withUnsafeBytes(of: rowID.littleEndian) { Data($0) },
            withUnsafeBytes(of: Int32(rowID).bigEndian) { Data($0) }, withUnsafeBytes(of: Int32(rowID).littleEndian) { Data($0) },
        ]
        for token in Array(tokens.values) + [changes.token] {
            #expect(!String(decoding: token.data, as: UTF8.self).contains(":\(rowID):"))
            // The zone's part (the 32 bytes after `z2`) holds no form of the row id; the
            // sequence after it is the zone's own count of changes. Searched apart: across the
            // seam, the code's last byte and the sequence's leading zeros spell a small row id
            // in little-endian one time in 256.
            let code = token.data.dropFirst(2).prefix(32)
            for encoding in encodings { #expect(code.firstRange(of: encoding) == nil) }
            let sequence = token.data.suffix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            #expect(sequence <= 2, "the sequence of one of ann's zones: \(sequence)")
        }
        for tag in tags { #expect(!tag.hasPrefix("\(rowID)."), "\(tag)") }
    }

    @Test(
        "A zone deleted and made anew has new tokens and tags: a token of the old zone has expired, and no tag of it matches",
        arguments: RemoteKind.tested)
    func aZoneMadeAnewSharesNothingWithTheOld(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        try await store.createZone(Self.ideas, account: "ann")
        let oldTag = try await Self.save("r1", in: Self.ideas, account: "ann", store: store)
        let oldToken = try #require(try await store.zoneTokens(account: "ann")[Self.ideas])
        try await store.deleteZone(Self.ideas, account: "ann")
        try await store.createZone(Self.ideas, account: "ann")
        #expect(try await Self.save("r1", in: Self.ideas, account: "ann", store: store) != oldTag)
        await #expect(throws: CloudError.changeTokenExpired) {
            try await store.fetchChanges(account: "ann", in: Self.ideas, since: oldToken, resultsLimit: 10)
        }
        // Nor is one account's token good in another's zone.
        try await store.createZone(Self.ideas, account: "ben")
        let annsToken = try #require(try await store.zoneTokens(account: "ann")[Self.ideas])
        await #expect(throws: CloudError.changeTokenExpired) {
            try await store.fetchChanges(account: "ben", in: Self.ideas, since: annsToken, resultsLimit: 10)
        }
    }

    @Test(
        "A device's token (z1:<zone>:<sequence>) and change tag (<zone>.<sequence>) from the release before are still accepted; another zone's old token has expired",
        arguments: [RemoteKind.embedded, .served])
    func tokensAndTagsOfTheReleaseBeforeAreAccepted(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client()
        _ = try laptop.modify(saving: [note("a"), note("b")], deleting: [], savePolicy: .allKeys)
        let sqlite = try #require(fixture.store as? SQLiteRecordStore)
        let rowID = try #require(try await sqlite.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM zone WHERE account = ? AND name = 'Ideas'", arguments: [CloudFixture.account])
        })
        let old = ChangeToken(data: Data("z1:\(rowID):1".utf8))
        #expect(try laptop.fetchChanges(in: CloudFixture.zone, since: old, resultsLimit: 10).changed.map(\.recordID.recordName) == ["b"])
        #expect(cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: ChangeToken(data: Data("z1:\(rowID + 1000):1".utf8)), resultsLimit: 10) }
            == .changeTokenExpired)

        // A record last saved by the release before keeps the tag it was given then.
        try await sqlite.writer.write { db in
            try db.execute(sql: "UPDATE record SET changeTag = ? WHERE recordName = 'a'", arguments: ["\(rowID).1"])
        }
        var edited = note("a", "edited")
        edited.changeTag = "\(rowID).1"
        let result = try laptop.modify(saving: [edited], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(result.failures.isEmpty)
        #expect(result.saved.first?.changeTag?.count == 22)
    }

    /// Saves the record `name` in `zone` of `account`; returns its new change tag.
    static func save(_ name: String, in zone: RecordZoneID, account: String, store: any RecordStore) async throws -> String {
        let record = RemoteRecord(recordType: "Note", recordID: RecordID(recordName: name, zoneID: zone), fields: ["text": .string(name)])
        let result = try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
        return try #require(result.saved.first?.changeTag)
    }
}
