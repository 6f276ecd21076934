import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ProcessTestSupport
@testable import PostgresRecordStore
import RemoteTestSupport
import ServerStore
import Synchronization
import Testing

/// What only PostgreSQL promises: several `serve` processes on one database act as one
/// server. Two stores with pools of their own stand for two processes.
@Suite(.enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
struct PostgresRecordStoreTests {
    static let zone = CloudFixture.zone

    @Test("Two servers on one database act as one: writers alternating between them lose no update, every change tag is new, and a reader paging behind them misses nothing")
    func twoServersActAsOne() async throws {
        let clock = ManualClock(start: CloudFixture.start)
        let stores = try await TestPostgres.stores(count: 2, clock: clock.wallClock)
        let servers = [
            try await ServedRemote(store: stores[0], account: CloudFixture.account, maximumRecordsPerRequest: 200, clock: clock.wallClock),
            try await ServedRemote(store: stores[1], account: CloudFixture.account, maximumRecordsPerRequest: 200, clock: clock.wallClock),
        ]
        try await servers[0].client().createZone(Self.zone)
        let counterID = id("counter")
        _ = try await servers[1].client().modify(
            saving: [RemoteRecord(recordType: "Counter", recordID: counterID, fields: ["n": .int64(0)])], deleting: [],
            savePolicy: .ifServerRecordUnchanged)

        let writers = 6, increments = 12
        let tags = Mutex<[String]>([])
        let writing = Mutex(writers)
        let mirror = Mutex<[String: String]>([:])
        let errors = Mutex<[String]>([])
        // Tasks 0..<6 write (`write`); task 6 pages the changes as they commit (`follow`).
        await concurrently(writers + 1) { writer in
            do {
                if writer == writers {
                    let seen = try await Self.follow(servers, whileWriting: { writing.withLock { $0 > 0 } })
                    mirror.withLock { $0 = seen }
                } else {
                    defer { writing.withLock { $0 -= 1 } }
                    for step in 0..<increments {
                        let saved = try await Self.write(writer: writer, step: step, servers: servers, counterID: counterID)
                        tags.withLock { $0.append(contentsOf: saved) }
                    }
                }
            } catch {
                errors.withLock { $0.append("task \(writer): \(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])

        let allTags = tags.withLock { $0 }
        #expect(allTags.count == writers * increments * 2)
        #expect(Set(allTags).count == allTags.count, "a change tag was given twice")
        let final = try await servers[1].client().records(in: Self.zone, ofType: "Counter").first
        #expect(final?["n"] == .int64(Int64(writers * increments)), "an increment was lost")

        var onServer: [String: String] = [:]
        var token: ChangeToken?
        var page: ZoneChanges
        repeat {
            page = try await servers[0].client().fetchChanges(in: Self.zone, since: token, resultsLimit: 50)
            for record in page.changed { onServer[record.recordID.recordName] = record.changeTag }
            token = page.token
        } while page.moreComing
        #expect(onServer.count == writers * increments + 1)
        #expect(mirror.withLock { $0 } == onServer, "the reader's mirror differs from the server")
    }

    /// Adds a note of its own, then 1 to the counter, with change tags (a conflict means:
    /// take the server's copy and try again), each request going to the other server.
    /// Returns the change tags it was given.
    private static func write(writer: Int, step: Int, servers: [ServedRemote], counterID: RecordID) async throws -> [String] {
        let client = servers[(writer + step) % 2].client()
        var tags = try await client.modify(saving: [note("w\(writer)-\(step)")], deleting: [], savePolicy: .ifServerRecordUnchanged)
            .saved.compactMap(\.changeTag)
        var counter = try #require(await client.records(in: zone, ofType: "Counter").first)
        while true {
            guard case let .int64(n) = counter["n"] else { throw CloudError.internalError }
            counter.fields["n"] = .int64(n + 1)
            let result = try await servers[(writer + step + 1) % 2].client().modify(
                saving: [counter], deleting: [], savePolicy: .ifServerRecordUnchanged)
            if let saved = result.saved.first {
                tags.append(saved.changeTag ?? "")
                return tags
            }
            guard case let .serverRecordChanged(server?) = result.failures[counterID] else {
                throw try #require(result.failures[counterID])
            }
            counter = server
        }
    }

    /// Pages the zone's changes from the start, alternating servers, while `whileWriting`
    /// holds and once more after; returns each record's last change tag seen.
    private static func follow(_ servers: [ServedRemote], whileWriting: () -> Bool) async throws -> [String: String] {
        var token: ChangeToken?
        var seen: [String: String] = [:]
        var fetches = 0
        var lastRound = false
        while true {
            let writersDone = !whileWriting()
            var page: ZoneChanges
            repeat {
                fetches += 1
                page = try await servers[fetches % 2].client().fetchChanges(in: zone, since: token, resultsLimit: 5)
                for record in page.changed { seen[record.recordID.recordName] = record.changeTag }
                token = page.token
            } while page.moreComing
            if lastRound { return seen }
            lastRound = writersDone
        }
    }

    @Test("Two servers saving into two containers of one account at once, zones and records, never pass its one quota between them")
    func twoServersHoldOneQuotaAcrossContainers() async throws {
        let clock = ManualClock(start: CloudFixture.start)
        let stores = try await TestPostgres.stores(count: 2, clock: clock.wallClock)
        let owners = ["erin", "erin@iCloud.example.Other"]
        try await stores[0].setQuota(AccountQuota(maxRecords: 5, maxZones: 4, maxAssetBytes: nil), account: "erin")
        // Eight writers at once, alternating servers and containers: each makes a zone of its
        // own and saves two records in its container's zone Ideas.
        for owner in owners { try await stores[0].createZone(Self.zone, account: owner) }
        let errors = await withTaskGroup(of: String?.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let store = stores[writer % 2], owner = owners[(writer / 2) % 2]
                    do {
                        try? await store.createZone(RecordZoneID(zoneName: "Z\(writer)"), account: owner)
                        let saves = (0..<2).map {
                            RecordSave(RemoteRecord(recordType: "Note", recordID: id("w\(writer)-\($0)"), fields: [:]), policy: .allKeys)
                        }
                        _ = try await store.modify(account: owner, saves: saves, deletes: [], atomic: false)
                        return nil
                    } catch {
                        return "\(writer): \(error)"
                    }
                }
            }
            var errors: [String] = []
            for await error in group { if let error { errors.append(error) } }
            return errors
        }
        #expect(errors == [])
        for owner in owners {
            #expect(try await stores[1].usage(account: owner) == AccountUsage(records: 5, zones: 4, assetBytes: 0))
        }
    }

    @Test("The second server to start on a database finds its tables and adds nothing")
    func migrationsRunOnce() async throws {
        let clock = ManualClock(start: CloudFixture.start)
        let stores = try await TestPostgres.stores(count: 3, clock: clock.wallClock)
        try await stores[0].addAccessToken(hash: "h", account: "alice")
        let accounts = try await stores[2].accessTokenAccounts()
        #expect(accounts.map(\.account) == ["alice"])
    }

    @Test("A store opens as many connections as it may use at once, before any request, and keeps those, never one more")
    func connectionsKeptOpen() async throws {
        let url = try #require(TestPostgres.url)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try await PostgresRecordStore.connect(
            url: url, schema: schema, clock: ManualClock(start: CloudFixture.start).wallClock, maximumConnections: 2)
        let name = PostgresRecordStore.applicationName(schema: schema)
        let open = { @Sendable in
            try await store.run { connection in
                try await connection.query(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = \(name)", logger: Logger(label: "test")
                ).collect().first!.decode(Int64.self)
            }
        }
        // One look at a time: a pool that opened connections only on demand would show one.
        // (The migration's connection, closed before `connect` returned, may linger a moment.)
        try await Poll.until("the store holds two connections") { try await open() == 2 }
        try await withThrowingTaskGroup { group in
            for _ in 0..<20 { group.addTask { _ = try await store.zones(account: "alice") } }
            try await group.waitForAll()
        }
        #expect(try await open() == 2)
    }

    @Test("A poll's reads (its token, subscriptions and zone tokens) are prepared once on a connection and read what is there now")
    func pollReadsPrepared() async throws {
        let clock = ManualClock(start: CloudFixture.start)
        let url = try #require(TestPostgres.url)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock.wallClock, maximumConnections: 1)
        try await store.addAccessToken(hash: "h", account: "alice", label: "laptop")
        try await store.saveSubscription(ZoneSubscription(id: "s", zone: Self.zone), account: "alice")
        try await store.createZone(Self.zone, account: "alice")
        for _ in 0..<2 {
            #expect(try await store.account(forAccessTokenHash: "h") == "alice")
            #expect(try await store.subscriptions(account: "alice").map(\.id) == ["s"])
            #expect(try await store.zoneTokens(account: "alice").keys.map(\.zoneName) == [Self.zone.zoneName])
        }
        let prepared = try await store.run { connection in
            var names: [String] = []
            let rows = try await connection.query("SELECT name FROM pg_prepared_statements ORDER BY name", logger: Logger(label: "test"))
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
        #expect(prepared == ["ideabox_subscriptions", "ideabox_valid_token", "ideabox_zone_sequences"])
        // Prepared, not kept: a revoked token and a deleted subscription are seen at once.
        #expect(try await store.revokeAccessToken(account: "alice", label: "laptop") == 1)
        #expect(try await store.deleteSubscription(id: "s", account: "alice"))
        #expect(try await store.account(forAccessTokenHash: "h") == nil)
        #expect(try await store.subscriptions(account: "alice").isEmpty)
    }

    @Test("A database an earlier server wrote, with flags stored as bool, has them as INT64 after the upgrade")
    func earlierBooleansBecomeIntegers() async throws {
        let url = try #require(TestPostgres.url)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let clock = ManualClock(start: CloudFixture.start).wallClock
        let connect = { @Sendable in
            try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        }
        // The database as the previous release left it: the booleans' migration not yet run,
        // and a record with flags as that release stored them.
        let earlier = try await connect()
        try await earlier.run { connection in
            let logger = Logger(label: "test")
            try await connection.query("DELETE FROM ideabox_migration WHERE name = 'v3-no-booleans'", logger: logger)
            try await connection.query(
                "INSERT INTO zone (account, name, created_at, change_sequence) VALUES ('alice', 'Ideas', 0, 1)", logger: logger)
            let fields = #"{"done":{"bool":true},"hidden":{"bool":false},"title":{"string":"{\"bool\":true}"}}"#
            try await connection.query(
                """
                INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                SELECT id, 'flags', 1, 'Idea', 'old', 0, 0, \(fields) FROM zone WHERE account = 'alice'
                """, logger: logger)
        }
        let upgraded = try await connect()
        let records = try await upgraded.records(account: "alice", in: Self.zone, ofType: "Idea", after: nil, limit: 10)
        #expect(records.map(\.fields) == [["done": .int64(1), "hidden": .int64(0), "title": .string(#"{"bool":true}"#)]])
        // Read leniently either way: the stored text itself must have changed.
        let stored = try await upgraded.run { connection in
            try await connection.query("SELECT fields FROM record", logger: Logger(label: "test")).collect()
                .map { try $0.decode(String.self) }
        }
        #expect(stored.count == 1 && !stored[0].contains(#"{"bool":"#) && stored[0].contains(#"{"int64":1}"#), "\(stored)")
    }

    @Test("A delete that drops the last reference to an asset while another server's save naming it is halfway keeps the asset once that save commits")
    func aSaveNamingAnAssetRacesItsDeletion() async throws {
        let stores = try await TestPostgres.stores(count: 2, clock: ManualClock(start: CloudFixture.start).wallClock)
        let (deleting, saving) = (stores[0], stores[1])
        let account = CloudFixture.account
        let library = RecordZoneID(zoneName: "RawLibraryZone")
        try await deleting.createZone(Self.zone, account: account)
        try await deleting.createZone(library, account: account)
        let bytes = Data("one photo in two places".utf8)
        let x = try await deleting.storeAsset(bytes, account: account)
        let named = RemoteRecord(recordType: "File", recordID: id("a"), fields: ["data": .asset(x)])
        _ = try await deleting.modify(account: account, saves: [RecordSave(named, policy: .allKeys)], deletes: [], atomic: true)
        let logger = Logger(label: "test")
        // The other server's save into the other zone, halfway, as `modify` does it: its zone
        // and the asset's row locked, its record and reference written, not yet committed.
        try await saving.run { connection in
            try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
            let xid = try await connection.query("SELECT pg_current_xact_id()::text", logger: logger).collect().first!.decode(String.self)
            let zone = try await connection.query(
                "SELECT id FROM zone WHERE account = \(account) AND name = \(library.zoneName) FOR UPDATE", logger: logger
            ).collect().first!.decode(Int64.self)
            try await connection.query(
                "UPDATE asset SET uploaded_at = uploaded_at WHERE account = \(account) AND checksum = \(x.checksum)", logger: logger)
            try await connection.query(
                """
                INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                VALUES (\(zone), 'b', 1, 'File', 'tag', 0, 0, \(StoredFields.encode(["data": .asset(x)])))
                """, logger: logger)
            try await connection.query(
                "INSERT INTO asset_reference (zone_id, record_name, checksum) VALUES (\(zone), 'b', \(x.checksum))", logger: logger)
            let deletion = Task {
                try await deleting.modify(account: account, saves: [], deletes: [RecordDeletion(id("a"))], atomic: false)
            }
            do {
                try await Poll.until("the deletion waits for the racing save's lock on the asset", timeout: .seconds(30)) {
                    try await connection.query(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted AND transactionid::text = \(xid)",
                        logger: logger
                    ).collect().first!.decode(Int.self) > 0
                }
            } catch {
                try await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            #expect(try await deletion.value.deleted == [id("a")])
        }
        #expect(try await deleting.asset(x.checksum, account: account) == bytes)
        // Dropped by its last record, it goes.
        _ = try await saving.modify(
            account: account, saves: [], deletes: [RecordDeletion(RecordID(recordName: "b", zoneID: library))], atomic: false)
        #expect(try await deleting.asset(x.checksum, account: account) == nil)
    }

    @Test("Issue 63: a database an earlier server wrote learns which records a DELETE_SELF reference of their own zone (in a list too) deletes with which; deleting the target then deletes them")
    func earlierReferencesCascade() async throws {
        let url = try #require(TestPostgres.url)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let clock = ManualClock(start: CloudFixture.start).wallClock
        let earlier = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        try await earlier.run { connection in
            let logger = Logger(label: "test")
            try await connection.query("DELETE FROM ideabox_migration WHERE name = 'v15-cascading-references'", logger: logger)
            try await connection.query("DROP TABLE cascading_reference, pending_cascade", logger: logger)
            try await connection.query(
                "INSERT INTO zone (account, name, created_at, change_sequence) VALUES ('alice', 'Ideas', 0, 5)", logger: logger)
            for (index, (name, fields)) in SQLiteRecordStoreTests.earlierReferences.enumerated() {
                try await connection.query(
                    """
                    INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                    SELECT id, \(name), \(Int64(index + 1)), 'Step', 'old', 0, 0, \(StoredFields.encode(fields)) FROM zone WHERE account = 'alice'
                    """, logger: logger)
            }
        }
        let upgraded = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        let rows = try await upgraded.run { connection in
            try await connection.query(
                "SELECT record_name || '→' || target_name FROM cascading_reference ORDER BY record_name", logger: Logger(label: "test")
            ).collect().map { try $0.decode(String.self) }
        }
        #expect(rows == ["child→parent", "listed→parent"])
        let zone = RecordZoneID(zoneName: "Ideas")
        _ = try await upgraded.modify(
            account: "alice", saves: [], deletes: [RecordDeletion(RecordID(recordName: "parent", zoneID: zone))], atomic: false)
        let left = try await upgraded.records(
            account: "alice", in: zone, named: SQLiteRecordStoreTests.earlierReferences.map(\.0), byteBudget: 1 << 20)
        #expect(left.records.map(\.recordID.recordName) == ["bystander", "elsewhere"])
    }

    @Test("A database an earlier server wrote learns which records name which asset: deleting one of two records naming an asset keeps it, the last deletes it")
    func earlierRecordsNameTheirAssets() async throws {
        let url = try #require(TestPostgres.url)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let clock = ManualClock(start: CloudFixture.start).wallClock
        let earlier = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        let data = Data("a file stored before".utf8)
        let reference = AssetReference(of: data)
        try await earlier.run { connection in
            let logger = Logger(label: "test")
            try await connection.query("DELETE FROM ideabox_migration WHERE name = 'v10-asset-references'", logger: logger)
            try await connection.query("DROP TABLE asset_reference", logger: logger)
            try await connection.query(
                "INSERT INTO zone (account, name, created_at, change_sequence) VALUES ('alice', 'RawLibraryZone', 0, 3)", logger: logger)
            try await connection.query(
                "INSERT INTO asset (account, checksum, size, uploaded_at) VALUES ('alice', \(reference.checksum), \(reference.size), 0)",
                logger: logger)
            let rows: [(String, [String: FieldValue])] = [
                ("one", ["filedata": .asset(reference)]),
                ("two", ["asset": .list([.asset(reference)]), "checksum": .string(#"{"asset":{"checksum":"x"}}"#)]),
                ("three", ["asset": .string("no asset here")]),
            ]
            for (index, (name, fields)) in rows.enumerated() {
                try await connection.query(
                    """
                    INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                    SELECT id, \(name), \(Int64(index + 1)), 'RawLibraryFile', 'old', 0, 0, \(StoredFields.encode(fields)) FROM zone WHERE account = 'alice'
                    """, logger: logger)
            }
        }
        let upgraded = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        let names = try await upgraded.run { connection in
            try await connection.query("SELECT record_name FROM asset_reference ORDER BY record_name", logger: Logger(label: "test"))
                .collect().map { try $0.decode(String.self) }
        }
        #expect(names == ["one", "two"])
        let zone = RecordZoneID(zoneName: "RawLibraryZone")
        _ = try await upgraded.modify(account: "alice", saves: [], deletes: [RecordDeletion(RecordID(recordName: "one", zoneID: zone))], atomic: false)
        #expect(try await upgraded.assetChunkCount(reference.checksum, account: "alice") != nil)
        _ = try await upgraded.modify(account: "alice", saves: [], deletes: [RecordDeletion(RecordID(recordName: "two", zoneID: zone))], atomic: false)
        #expect(try await upgraded.assetChunkCount(reference.checksum, account: "alice") == nil)
    }

    @Test("A database an earlier server wrote, whose records' fields have no types kept, opens with each field typed as FieldSchema types its first record's value (every kind, lists by their first item, empty lists untyped), per account; a claim then reads them")
    func earlierRecordsTypeTheirFields() async throws {
        let url = try #require(TestPostgres.url)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let clock = ManualClock(start: CloudFixture.start).wallClock
        let earlier = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        try await earlier.run { connection in
            let logger = Logger(label: "test")
            try await connection.query("DELETE FROM ideabox_migration WHERE name = 'v13-stored-field-types'", logger: logger)
            for account in ["alice", "bob"] {
                try await connection.query(
                    "INSERT INTO zone (account, name, created_at, change_sequence) VALUES (\(account), 'Ideas', 0, 9)", logger: logger)
            }
            for (index, record) in StoredFieldTypesFixture.records.enumerated() {
                try await connection.query(
                    """
                    INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                    SELECT id, \(record.name), \(Int64(index + 1)), \(record.recordType), 'old', 0, 0, \(StoredFields.encode(record.fields))
                    FROM zone WHERE account = \(record.account)
                    """, logger: logger)
            }
        }
        let upgraded = try await PostgresRecordStore.connect(url: url, schema: schema, clock: clock, maximumConnections: 1)
        for account in ["alice", "bob"] {
            let listed = StoredFieldTypesFixture.listed(try await upgraded.schema(ofAccount: account))
            #expect(listed == StoredFieldTypesFixture.expected(ofAccount: account))
        }
        #expect(try await upgraded.claimFieldTypes(["Photo": ["taken": "INT64", "lens": "STRING"]], account: "alice")
            == ["Photo": ["taken": "TIMESTAMP", "lens": "STRING"]])
    }

    @Test("A database that cannot be reached, or a URL that is not PostgreSQL's, is one clear error")
    func unreachable() async throws {
        let refused = await #expect(throws: PostgresStoreError.self) {
            try await PostgresRecordStore.connect(url: "postgres://ideabox@127.0.0.1:1/none?sslmode=disable", clock: .fixed(CloudFixture.start))
        }
        #expect(refused?.description.contains("refused") == true)
        let configured = try #require(TestPostgres.url)
        var elsewhere = try #require(URLComponents(string: configured))
        elsewhere.path = "/no_such_database"
        let url = try #require(elsewhere.string)
        let missing = await #expect(throws: PostgresStoreError.self) {
            try await PostgresRecordStore.connect(url: url, clock: .fixed(CloudFixture.start))
        }
        #expect(missing?.description.contains("does not exist") == true)
        await #expect(throws: PostgresStoreError.self) {
            try await PostgresRecordStore.connect(url: "mysql://127.0.0.1/x", clock: .fixed(CloudFixture.start))
        }
    }
}

/// Runs `body(0..<count)` as `count` tasks, all at once, and returns when every one has.
private func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<count { group.addTask { await body(index) } }
    }
}
