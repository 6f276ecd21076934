import CloudKitModel
import RemoteTestSupport
import Testing

/// Saving, deleting and querying records through a device's client.
@Suite struct SimulatedDatabaseTests {
    @Test("A save comes back with a change tag and server times; a query finds it", arguments: RemoteKind.tested)
    func saveAndQuery(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let result = try database.modify(saving: [note("a", "first")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(result.failures.isEmpty && result.partialFailure == nil)
        let saved = try #require(result.saved.first)
        #expect(saved.changeTag != nil)
        #expect(saved.creationDate == CloudFixture.start && saved.modificationDate == CloudFixture.start)
        #expect(saved.fields == ["text": .string("first")])
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note") == [saved])
        #expect(try database.records(in: CloudFixture.zone, ofType: "Other").isEmpty)
    }

    @Test("A re-save with the current tag gets a new tag and modification time, and keeps its creation time", arguments: RemoteKind.tested)
    func update(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let first = try database.modify(saving: [note("a")], deleting: [], savePolicy: .ifServerRecordUnchanged).saved[0]
        fixture.clock.advance(by: 5000)
        var edited = first
        edited["text"] = .string("edited")
        let second = try database.modify(saving: [edited], deleting: [], savePolicy: .ifServerRecordUnchanged).saved[0]
        #expect(second.changeTag != first.changeTag)
        #expect(second.creationDate == CloudFixture.start)
        #expect(second.modificationDate == CloudFixture.start.adding(milliseconds: 5000))
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note") == [second])
    }

    @Test("A stale change tag fails that item with the server's record; the rest of the request is applied", arguments: RemoteKind.tested)
    func staleTag(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let original = try database.modify(saving: [note("a")], deleting: [], savePolicy: .ifServerRecordUnchanged).saved[0]
        var fromOtherDevice = original
        fromOtherDevice["text"] = .string("other device")
        let server = try database.modify(saving: [fromOtherDevice], deleting: [], savePolicy: .ifServerRecordUnchanged).saved[0]

        var stale = original
        stale["text"] = .string("stale")
        let result = try database.modify(saving: [stale, note("b")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(result.failures == [id("a"): .serverRecordChanged(serverRecord: server)])
        #expect(result.partialFailure == .partialFailure([id("a"): .serverRecordChanged(serverRecord: server)]))
        #expect(result.saved.map(\.recordID) == [id("b")])
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("a"), id("b")])
    }

    @Test("A record without a change tag conflicts with an existing one; allKeys overwrites it", arguments: RemoteKind.tested)
    func missingTagAndAllKeys(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let server = try database.modify(saving: [note("a")], deleting: [], savePolicy: .ifServerRecordUnchanged).saved[0]
        let conflict = try database.modify(saving: [note("a", "new")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(conflict.failures == [id("a"): .serverRecordChanged(serverRecord: server)])
        let overwrite = try database.modify(saving: [note("a", "new")], deleting: [], savePolicy: .allKeys)
        #expect(overwrite.failures.isEmpty)
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").map { $0["text"] } == [.string("new")])
    }

    @Test("Saving with a change tag a record the server deleted fails with unknownItem; without a tag recreates it", arguments: RemoteKind.tested)
    func savingDeleted(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let saved = try database.modify(saving: [note("a")], deleting: [], savePolicy: .ifServerRecordUnchanged).saved[0]
        _ = try database.modify(saving: [], deleting: [id("a")], savePolicy: .ifServerRecordUnchanged)
        let stale = try database.modify(saving: [saved], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(stale.failures == [id("a"): .unknownItem])
        let recreated = try database.modify(saving: [note("a")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(recreated.saved.map(\.recordID) == [id("a")])
    }

    @Test("Deleting removes the record; deleting a missing record succeeds too", arguments: RemoteKind.tested)
    func deletes(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a"), note("b")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        let result = try database.modify(saving: [], deleting: [id("a"), id("never")], savePolicy: .ifServerRecordUnchanged)
        #expect(result.deleted == [id("a"), id("never")])
        #expect(result.failures.isEmpty)
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("b")])
    }

    @Test("More items than the server's limit fail the whole request with limitExceeded", arguments: RemoteKind.tested)
    func limit(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind, maximumRecordsPerRequest: 3)
        let database = try fixture.client()
        #expect(database.maximumRecordsPerRequest == 3)
        #expect(cloudError {
            try database.modify(saving: [note("a"), note("b")], deleting: [id("c"), id("d")], savePolicy: .allKeys)
        } == .limitExceeded)
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").isEmpty)
        #expect(try database.modify(saving: [note("a"), note("b")], deleting: [id("c")], savePolicy: .allKeys).saved.count == 2)
    }

    @Test("A missing zone: zoneNotFound for every operation, nothing applied", arguments: RemoteKind.tested)
    func zoneNotFound(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let missing = RecordZoneID(zoneName: "Missing")
        #expect(cloudError {
            try database.modify(saving: [note("a"), note("b", zone: missing)], deleting: [], savePolicy: .allKeys)
        } == .zoneNotFound)
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").isEmpty)
        #expect(cloudError { try database.fetchChanges(in: missing, since: nil, resultsLimit: 10) } == .zoneNotFound)
        #expect(cloudError { try database.records(in: missing, ofType: "Note") } == .zoneNotFound)
    }

    @Test("Creating a zone twice keeps its records; deleting it removes them; both are idempotent", arguments: RemoteKind.tested)
    func zones(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        try database.createZone(CloudFixture.zone)
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").count == 1)
        try database.deleteZone(CloudFixture.zone)
        try database.deleteZone(CloudFixture.zone)
        #expect(cloudError { try database.records(in: CloudFixture.zone, ofType: "Note") } == .zoneNotFound)
        try database.createZone(CloudFixture.zone)
        #expect(try database.records(in: CloudFixture.zone, ofType: "Note").isEmpty)
    }

    @Test("Change tags are unique per save, across zones and zone recreation", arguments: RemoteKind.tested)
    func uniqueTags(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let other = RecordZoneID(zoneName: "Other")
        try database.createZone(other)
        var tags: [String?] = []
        for _ in 0..<3 {
            tags += try database.modify(saving: [note("a"), note("b", zone: other)], deleting: [], savePolicy: .allKeys).saved.map(\.changeTag)
        }
        try database.deleteZone(CloudFixture.zone)
        try database.createZone(CloudFixture.zone)
        tags += try database.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys).saved.map(\.changeTag)
        #expect(Set(tags).count == 7 && !tags.contains(nil))
    }
}
