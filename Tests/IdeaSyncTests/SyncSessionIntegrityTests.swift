import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import Testing

/// The integrity check (`SyncSession.checkIntegrity`): run once after the engine's first
/// successful sync, it compares this device with the remote and logs what differs.
@Suite struct SyncSessionIntegrityTests {
    @Test func theIntegrityCheckLogsDifferencesAsWarnings() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let idea = try a.repository.addIdea(title: "checked")
        _ = try await a.session.run()
        #expect(try await a.session.checkIntegrity().isEmpty)
        #expect(try a.repository.syncLog().first?.message == "integrity: this device and the remote agree")

        let admin = fixture.cloud.database(forDevice: "admin")
        let zone = RecordZoneID(zoneName: "Ideas")
        var record = try #require(try await admin.records(in: zone, ofType: "Idea").first)
        record["updatedAt"] = .timestamp(idea.updatedAt.adding(milliseconds: 5))
        let stray = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: UUID().lowercasedString, zoneID: zone),
            fields: [
                "title": .string("stray"), "description": .string(""), "isCompleted": .int64(0),
                "createdAt": .timestamp(idea.createdAt), "updatedAt": .timestamp(idea.createdAt),
                "deviceId": .string("elsewhere"), "version": .int64(0), "isDeleted": .int64(0),
            ])
        _ = try await admin.modify(saving: [record, stray], deleting: [], savePolicy: .allKeys)

        let differences = try await a.session.checkIntegrity()
        #expect(differences.count == 2)
        let warnings = try a.repository.syncLog().filter { $0.kind == .warning }.map(\.message)
        // Named by title, with the start of the id.
        let shortId = idea.id.lowercasedString.prefix(8)
        #expect(warnings.contains { $0.hasPrefix("integrity: “\(idea.title)” (\(shortId)) differs") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("integrity: “stray” (") && $0.hasSuffix("is on the remote but not here") }, "\(warnings)")
    }

    @Test func theIntegrityCheckRunsAfterTheFirstSuccessfulSync() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        a.engine.start()
        await fixture.scheduler.runDue()
        #expect(try a.repository.syncLog().contains { $0.message.hasPrefix("integrity:") })
    }

    /// The check lists and holds every record of the remote: past its limit it compares
    /// nothing and says so, rather than read a million records at every start.
    @Test func aDeviceHoldingMoreThanTheLimitIsNotComparedAndTheLogSaysSo() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        for title in ["one", "two", "three"] { _ = try a.repository.addIdea(title: title) }
        _ = try await a.session.run()
        let admin = fixture.cloud.database(forDevice: "admin")
        let stray = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: UUID().lowercasedString, zoneID: RecordZoneID(zoneName: "Ideas")),
            fields: [
                "title": .string("stray"), "description": .string(""), "isCompleted": .int64(0),
                "createdAt": .timestamp(Timestamp(milliseconds: 1)), "updatedAt": .timestamp(Timestamp(milliseconds: 1)),
                "deviceId": .string("elsewhere"), "version": .int64(0), "isDeleted": .int64(0),
            ])
        _ = try await admin.modify(saving: [stray], deleting: [], savePolicy: .allKeys)

        #expect(try await a.session.checkIntegrity(comparingAtMost: 2).isEmpty, "not compared: the stray is not found")
        let line = try #require(try a.repository.syncLog().first)
        #expect(line.message == "integrity: not checked: 3 ideas is more than the 2 it compares")
        #expect(line.kind == .info)
        #expect(SyncLogEvent.integrityLeftOut(ideas: 3, limit: 2).text(in: .traditionalChinese) == "完整性檢查：未檢查，3 筆靈感超過可比對的 2 筆")
        #expect(try await a.session.checkIntegrity(comparingAtMost: 3).count == 1, "at the limit, compared: the stray is found")
    }
}
