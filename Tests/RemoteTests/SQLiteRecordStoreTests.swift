import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
@testable import SQLiteRecordStore
import ServerStore
import Synchronization
import Testing

/// `SQLiteRecordStore`'s own migrations and where its calls run (its record operations are
/// the contract suites').
@Suite struct SQLiteRecordStoreTests {
    @Test("A call awaited through RecordStore does its SQLite work on the blocking executor, never on the test's cooperative pool")
    func awaitedCallsRunOffThePool() async throws {
        // The store reads its clock inside its write transactions: each reading notes whether
        // the task doing the work prefers the blocking executor there.
        let readings = Mutex<[Bool]>([])
        let clock = WallClock {
            let offThePool = withUnsafeCurrentTask { task in
                task?.unownedTaskExecutor == BlockingTaskExecutor.shared.asUnownedTaskExecutor()
            }
            readings.withLock { $0.append(offThePool) }
            return Timestamp(milliseconds: 0)
        }
        let store: any RecordStore = try SQLiteRecordStore.inMemory(clock: clock)
        readings.withLock { $0 = [] }
        let zone = RecordZoneID(zoneName: "Ideas")
        try await store.createZone(zone, account: "alice")
        let record = RemoteRecord(recordType: "Note", recordID: RecordID(recordName: "a", zoneID: zone), fields: ["text": .string("a")])
        _ = try await store.modify(account: "alice", saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
        try await store.addAccessToken(hash: "h", account: "alice", label: "laptop")
        let taken = readings.withLock { $0 }
        #expect(!taken.isEmpty && taken.allSatisfy { $0 }, "\(taken)")
    }

    @Test("A file an earlier server wrote, with flags stored as bool, opens with them as INT64 and keeps every record")
    func earlierBooleansBecomeIntegers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteRecordStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The file as the previous release left it: its migrations, then its rows.
        let earlier = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteRecordStore.fileName).path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.assets.rawValue)
        try earlier.write { db in
            try db.execute(sql: "INSERT INTO zone (account, name, createdAt) VALUES ('alice', 'Ideas', 0)")
            let rows: [(String, String)] = [
                ("flags", #"{"done":{"bool":true},"hidden":{"bool":false},"title":{"string":"{\"bool\":true}"}}"#),
                ("plain", #"{"title":{"string":"no flags"},"version":{"int64":3}}"#),
            ]
            for (index, (name, fields)) in rows.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO record (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields)
                        VALUES (1, ?, ?, 'Idea', ?, 0, 0, ?)
                        """,
                    arguments: [name, index + 1, "1.\(index + 1)", fields])
            }
            try db.execute(sql: "UPDATE zone SET changeSequence = 2")
        }
        try earlier.close()

        let store = try SQLiteRecordStore.open(directory: folder, clock: WallClock { Timestamp(milliseconds: 0) })
        let records = try store.records(account: "alice", in: RecordZoneID(zoneName: "Ideas"), ofType: "Idea")
        #expect(records.map(\.recordID.recordName) == ["flags", "plain"])
        #expect(records[0].fields == ["done": .int64(1), "hidden": .int64(0), "title": .string(#"{"bool":true}"#)])
        #expect(records[1].fields == ["title": .string("no flags"), "version": .int64(3)])
        let stored = try store.writer.read { db in try String.fetchAll(db, sql: "SELECT fields FROM record ORDER BY recordName") }
        #expect(!stored[0].contains(#"{"bool":"#))
        #expect(stored[0].contains(#"{"done":{"int64":1}"#))
    }

    @Test("A file an earlier server wrote keeps its assets, each as one chunk, and its record quota, now with the default zone and byte limits")
    func earlierAssetsAndQuotasCarryOver() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteRecordStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteRecordStore.fileName).path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.accounts.rawValue)
        let data = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0) })
        let reference = AssetReference(of: data)
        try earlier.write { db in
            try db.execute(
                sql: "INSERT INTO asset (account, checksum, size, uploadedAt, data) VALUES ('alice', ?, ?, 0, ?)",
                arguments: [reference.checksum, reference.size, data])
            try db.execute(sql: "INSERT INTO quota (account, maxRecords) VALUES ('alice', 40)")
        }
        try earlier.close()

        let store = try SQLiteRecordStore.open(directory: folder, clock: WallClock { Timestamp(milliseconds: 0) })
        #expect(try store.asset(reference.checksum, account: "alice") == data)
        #expect(try store.assetChunkCount(reference.checksum, account: "alice") == 1)
        #expect(try store.quota(account: "alice") == AccountQuota(maxRecords: 40, maxZones: 100, maxAssetBytes: 1 << 30))
        #expect(try store.usage(account: "alice").assetBytes == 3_000_000)
    }

    @Test("A file an earlier server wrote learns which records name which asset: deleting one of two records naming an asset keeps it, the last deletes it")
    func earlierRecordsNameTheirAssets() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteRecordStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteRecordStore.fileName).path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.queryableFieldReady.rawValue)
        let data = Data("a file stored before".utf8)
        let reference = AssetReference(of: data)
        try earlier.write { db in
            try db.execute(sql: "INSERT INTO zone (account, name, createdAt, changeSequence) VALUES ('alice', 'RawLibraryZone', 0, 3)")
            try db.execute(
                sql: "INSERT INTO asset (account, checksum, size, uploadedAt) VALUES ('alice', ?, ?, 0)",
                arguments: [reference.checksum, reference.size])
            try db.execute(sql: "INSERT INTO assetChunk (assetId, seq, data) VALUES (1, 0, ?)", arguments: [data])
            let rows: [(String, [String: FieldValue])] = [
                ("one", ["filedata": .asset(reference)]),
                ("two", ["asset": .list([.asset(reference)]), "checksum": .string(#"{"asset":{"checksum":"x"}}"#)]),
                ("three", ["asset": .string("no asset here")]),
            ]
            for (index, (name, fields)) in rows.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO record (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields)
                        VALUES (1, ?, ?, 'RawLibraryFile', ?, 0, 0, ?)
                        """,
                    arguments: [name, index + 1, "1.\(index + 1)", StoredFields.encode(fields)])
            }
        }
        try earlier.close()

        let store = try SQLiteRecordStore.open(directory: folder, clock: WallClock { Timestamp(milliseconds: 0) })
        let names = try store.writer.read { db in try String.fetchAll(db, sql: "SELECT recordName FROM assetReference ORDER BY recordName") }
        #expect(names == ["one", "two"])
        let zone = RecordZoneID(zoneName: "RawLibraryZone")
        _ = try store.modify(account: "alice", saves: [], deletes: [RecordDeletion(RecordID(recordName: "one", zoneID: zone))])
        #expect(try store.asset(reference.checksum, account: "alice") == data)
        _ = try store.modify(account: "alice", saves: [], deletes: [RecordDeletion(RecordID(recordName: "two", zoneID: zone))])
        #expect(try store.asset(reference.checksum, account: "alice") == nil)
    }

    @Test("Issue 63: a file an earlier server wrote learns which records a DELETE_SELF reference of their own zone (in a list too) deletes with which; deleting the target then deletes them")
    func earlierReferencesCascade() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteRecordStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteRecordStore.fileName).path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.changeWriters.rawValue)
        try earlier.write { db in
            try db.execute(sql: "INSERT INTO zone (account, name, createdAt, changeSequence) VALUES ('alice', 'Ideas', 0, 5)")
            for (index, (name, fields)) in Self.earlierReferences.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO record (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields)
                        VALUES (1, ?, ?, 'Step', ?, 0, 0, ?)
                        """,
                    arguments: [name, index + 1, "1.\(index + 1)", StoredFields.encode(fields)])
            }
        }
        try earlier.close()

        let store = try SQLiteRecordStore.open(directory: folder, clock: WallClock { Timestamp(milliseconds: 0) })
        let rows = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT recordName, targetName FROM cascadingReference ORDER BY recordName").map { "\($0[0] as String)→\($0[1] as String)" }
        }
        #expect(rows == ["child→parent", "listed→parent"])
        let zone = RecordZoneID(zoneName: "Ideas")
        _ = try store.modify(account: "alice", saves: [], deletes: [RecordDeletion(RecordID(recordName: "parent", zoneID: zone))])
        let left = try store.records(account: "alice", in: zone, named: Self.earlierReferences.map(\.0), byteBudget: 1 << 20)
        #expect(left.records.map(\.recordID.recordName) == ["bystander", "elsewhere"])
    }

    /// Records an earlier server stored: two deleted with `parent` (a reference, a list of
    /// them), one whose reference does nothing, one whose reference names another zone.
    static let earlierReferences: [(String, [String: FieldValue])] = [
        ("parent", ["title": .string(#"{"reference":{"action":"DELETE_SELF","recordName":"x"}}"#)]),
        ("child", ["parent": .reference(RecordReference(recordName: "parent", action: .deleteSelf))]),
        ("listed", ["parents": .list([.reference(RecordReference(recordName: "parent", zoneName: "Ideas", action: .deleteSelf))])]),
        ("bystander", ["parent": .reference(RecordReference(recordName: "parent", action: .none))]),
        ("elsewhere", ["parent": .reference(RecordReference(recordName: "parent", zoneName: "Other", action: .deleteSelf))]),
    ]

    @Test("Issue 61: a file an earlier server wrote opens with its changes written by no device (every poll counts them), and records the writer of each change since")
    func earlierChangesHaveNoWriter() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteRecordStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteRecordStore.fileName).path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.storedFieldTypes.rawValue)
        try earlier.write { db in
            try db.execute(sql: "INSERT INTO zone (account, name, createdAt, changeSequence) VALUES ('alice', 'Ideas', 0, 2)")
            try db.execute(sql: """
                INSERT INTO record (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields)
                VALUES (1, 'kept', 1, 'Idea', 'old', 0, 0, '{}');
                INSERT INTO deletion (zoneId, recordName, changeSequence, recordType, deletedAt) VALUES (1, 'gone', 2, 'Idea', 0);
                """)
        }
        try earlier.close()

        let store = try SQLiteRecordStore.open(directory: folder, clock: WallClock { Timestamp(milliseconds: 0) })
        let zone = RecordZoneID(zoneName: "Ideas")
        #expect(try store.changeWriters(account: "alice", in: zone, since: nil, limit: 2) == [nil])
        let token = try store.zoneTokens(account: "alice")[zone]
        _ = try store.modify(
            account: "alice", saves: [RecordSave(RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "new", zoneID: zone)), policy: .allKeys)],
            deletes: [], atomic: false, device: "phone")
        #expect(try store.changeWriters(account: "alice", in: zone, since: token, limit: 2) == ["phone"])
    }

    @Test("A file an earlier server wrote, whose records' fields have no types kept, opens with each field typed as its first record's value is (every kind, lists by their first item, empty lists untyped), per account; a claim then reads them")
    func earlierRecordsTypeTheirFields() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteRecordStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteRecordStore.fileName).path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.fieldTypes.rawValue)
        try earlier.write { db in
            for account in ["alice", "bob"] {
                try db.execute(sql: "INSERT INTO zone (account, name, createdAt, changeSequence) VALUES (?, 'Ideas', 0, 9)", arguments: [account])
            }
            for (index, record) in StoredFieldTypesFixture.records.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO record (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields)
                        SELECT id, ?, ?, ?, 'old', 0, 0, ? FROM zone WHERE account = ?
                        """,
                    arguments: [record.name, index + 1, record.recordType, StoredFields.encode(record.fields), record.account])
            }
        }
        try earlier.close()

        let store = try SQLiteRecordStore.open(directory: folder, clock: WallClock { Timestamp(milliseconds: 0) })
        for account in ["alice", "bob"] {
            #expect(StoredFieldTypesFixture.listed(try store.schema(ofAccount: account)) == StoredFieldTypesFixture.expected(ofAccount: account))
        }
        #expect(try store.claimFieldTypes(["Photo": ["taken": "INT64", "lens": "STRING"]], account: "alice")
            == ["Photo": ["taken": "TIMESTAMP", "lens": "STRING"]])
    }
}
