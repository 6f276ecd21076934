import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
@testable import IdeaSync
import RemoteTestSupport
import Testing

/// A device that syncs in the iPhone app's shape (`RecordShape.coreData`) with the app on a
/// phone of the same account (`IPhoneAppDevice`, which writes and reads as the app does),
/// through the embedded remote: each side's adds, edits, done-marks and deletes reach the
/// other, edits of different fields made apart both survive, and the records of the app's
/// other entities are never touched.
@Suite struct RecordShapeTests {
    /// A terminal in the app's shape, and the app on a phone of its account.
    static func companions() throws -> (fixture: SyncFixture, terminal: Device, app: IPhoneAppDevice) {
        let fixture = try SyncFixture()
        let terminal = try fixture.device("laptop", shape: .coreData)
        return (fixture, terminal, IPhoneAppDevice(database: fixture.cloud.database(forDevice: "iphone"), deviceId: "0F6E2C1A-IPHONE"))
    }

    /// An idea as the app makes it now (per the fixture's clock).
    static func appIdea(_ fixture: SyncFixture, title: String, description: String = "", isCompleted: Bool = false) -> IPhoneApp.Idea {
        let now = fixture.scheduler.clock.now().date
        return IPhoneApp.Idea(
            id: UUID(), title: title, description: description, isCompleted: isCompleted, createdAt: now, updatedAt: now,
            lastModifiedBy: "")
    }

    /// `idea` as edited on the phone now.
    static func edited(_ idea: IPhoneApp.Idea, _ fixture: SyncFixture, _ change: (inout IPhoneApp.Idea) -> Void) -> IPhoneApp.Idea {
        var idea = idea
        change(&idea)
        idea.updatedAt = fixture.scheduler.clock.now().date
        return idea
    }

    @Test func anIdeaThePhoneAddedReachesTheTerminalWithItsOwnId() async throws {
        let (fixture, terminal, app) = try Self.companions()
        try await app.prepare()
        let added = Self.appIdea(fixture, title: "🚀 在手機上想到的 idea", description: "第一行\n第二行")
        try await app.save(added)
        _ = try await terminal.session.run()
        let ideas = try terminal.ideas()
        #expect(ideas.map(\.id) == [added.id], "the app's id is the idea's id")
        #expect(ideas.first?.title == added.title)
        #expect(ideas.first?.description == added.description)
        #expect(ideas.first?.deviceId == app.deviceId, "the app's lastModifiedBy is its writer")
    }

    @Test func whatTheTerminalAddsTheAppReadsAsItsOwn() async throws {
        let (fixture, terminal, app) = try Self.companions()
        let long = String(repeating: "長", count: 2_048) + String(repeating: "x", count: 2_048)
        let first = try terminal.repository.addIdea(title: "學習 SwiftData", description: long, isCompleted: true)
        let second = try terminal.repository.addIdea(title: "🎉 empty description")
        _ = try await terminal.session.run()
        let onPhone = try await app.ideas()
        #expect(onPhone.count == 2)
        let read = try #require(onPhone[first.id.uuidString], "named by the idea's uuidString")
        #expect(read.id == first.id && read.title == first.title && read.description == long && read.isCompleted)
        #expect(read.createdAt == first.createdAt.date && read.updatedAt == first.updatedAt.date)
        #expect(read.lastModifiedBy == terminal.repository.deviceId)
        #expect(onPhone[second.id.uuidString]?.description == "")
        let ours = try await fixture.cloud.database(forDevice: "iphone").records(in: CoreDataIdea.zone, ofType: IdeaRecord.recordType)
        #expect(ours.isEmpty, "no record of our own shape")
    }

    @Test func anEditOfThePhonesIdeaGoesToItsRecordAndMakesNoSecond() async throws {
        let (fixture, terminal, app) = try Self.companions()
        try await app.prepare()
        let added = Self.appIdea(fixture, title: "from the phone")
        let name = try await app.save(added)
        _ = try await terminal.session.run()
        await fixture.scheduler.advance(by: 1000)
        _ = try terminal.repository.setCompleted(true, id: added.id)
        _ = try terminal.repository.editIdea(id: added.id, IdeaChanges(title: "edited in the terminal"))
        _ = try await terminal.session.send()
        let onPhone = try await app.ideas()
        #expect(Array(onPhone.keys) == [name], "the app's record, not a second one")
        #expect(onPhone[name]?.title == "edited in the terminal")
        #expect(onPhone[name]?.isCompleted == true)
    }

    @Test func aDeleteOnEitherSideRemovesTheIdeaOnTheOther() async throws {
        let (fixture, terminal, app) = try Self.companions()
        try await app.prepare()
        let fromPhone = Self.appIdea(fixture, title: "the phone deletes this")
        let name = try await app.save(fromPhone)
        let fromTerminal = try terminal.repository.addIdea(title: "the terminal deletes this")
        _ = try await terminal.session.run()
        #expect(try await app.ideas().count == 2)

        await fixture.scheduler.advance(by: 1000)
        try await app.delete(recordName: name)
        _ = try terminal.repository.deleteIdea(id: fromTerminal.id)
        _ = try await terminal.session.run()
        #expect(try terminal.ideas().isEmpty, "the phone's delete deleted it here")
        #expect(try await app.ideas().isEmpty, "the terminal's delete is the record's deletion")
        #expect(try await fixture.cloud.database(forDevice: "iphone").records(in: CoreDataIdea.zone, ofType: "CD_Idea").isEmpty)
        let log = try terminal.repository.syncLog(limit: 100).compactMap { $0.text(in: .english) }
        #expect(!log.contains { $0.contains("skipped") }, "\(log)")
    }

    @Test func editsOfDifferentFieldsMadeApartBothSurvive() async throws {
        let (fixture, terminal, app) = try Self.companions()
        try await app.prepare()
        let added = Self.appIdea(fixture, title: "one idea", description: "as first written")
        let name = try await app.save(added)
        _ = try await terminal.session.run()
        // The terminal writes the record once, so its stamps are on it.
        await fixture.scheduler.advance(by: 1000)
        _ = try terminal.repository.setCompleted(true, id: added.id)
        _ = try await terminal.session.send()

        // Apart: the description in the terminal (offline), then the title on the phone.
        try fixture.cloud.network.setOffline(true, device: "laptop")
        await fixture.scheduler.advance(by: 1000)
        _ = try terminal.repository.editIdea(id: added.id, IdeaChanges(description: "written in the terminal"))
        await fixture.scheduler.advance(by: 1000)
        let phoneCopy = try #require(try await app.ideas()[name])
        try await app.save(Self.edited(phoneCopy, fixture) { $0.title = "renamed on the phone" }, recordName: name)

        try fixture.cloud.network.setOffline(false, device: "laptop")
        _ = try await terminal.session.run()
        let here = try #require(try terminal.ideas().first)
        #expect(here.title == "renamed on the phone")
        #expect(here.description == "written in the terminal")
        #expect(here.isCompleted)
        let there = try #require(try await app.ideas()[name])
        #expect(there.title == "renamed on the phone" && there.description == "written in the terminal" && there.isCompleted)
    }

    @Test func anEditWaitingToBeSentWinsOverTheAppsDeleteAndPutsTheIdeaBack() async throws {
        let (fixture, terminal, app) = try Self.companions()
        try await app.prepare()
        let added = Self.appIdea(fixture, title: "deleted on the phone")
        let name = try await app.save(added)
        _ = try await terminal.session.run()
        try fixture.cloud.network.setOffline(true, device: "laptop")
        await fixture.scheduler.advance(by: 1000)
        _ = try terminal.repository.editIdea(id: added.id, IdeaChanges(description: "an edit made offline"))
        try await app.delete(recordName: name)

        try fixture.cloud.network.setOffline(false, device: "laptop")
        _ = try await terminal.session.run()
        #expect(try terminal.ideas().map(\.description) == ["an edit made offline"], "the edit is not lost")
        let back = try await app.ideas()
        #expect(back.values.map(\.description) == ["an edit made offline"])
        #expect(back.values.first?.id == added.id)
    }

    @Test func aDescriptionTheAppMovedIntoAnAssetIsRead() async throws {
        let (_, terminal, _) = try Self.companions()
        let phone = terminal.remote
        try await phone.createZone(CoreDataIdea.zone)
        let text = String(repeating: "很長的描述 ", count: 200)
        let asset = try await phone.uploadAsset(Data(text.utf8))
        var record = try IPhoneApp.fixture("app-idea")
        record.fields["CD_description"] = .string("")
        record.fields["CD_description_ckAsset"] = .asset(asset)
        record.changeTag = nil
        _ = try await phone.modify(saving: [record], deleting: [], savePolicy: .allKeys)
        _ = try await terminal.session.run()
        #expect(try terminal.ideas().map(\.description) == [text])
    }

    @Test func recordsOfTheAppsOtherEntitiesAreLeftAloneEvenByAnOverwrite() async throws {
        let (fixture, terminal, app) = try Self.companions()
        try await app.prepare()
        let phone = fixture.cloud.database(forDevice: "iphone")
        var metadata = try IPhoneApp.fixture("app-sync-metadata")
        metadata.changeTag = nil
        _ = try await phone.modify(saving: [metadata], deleting: [], savePolicy: .allKeys)
        let name = try await app.save(Self.appIdea(fixture, title: "only on the phone"))
        _ = try await terminal.session.run()
        #expect(try terminal.ideas().count == 1)
        let log = try terminal.repository.syncLog(limit: 100).compactMap { $0.text(in: .english) }
        #expect(!log.contains { $0.contains("skipped") }, "another entity is no broken idea: \(log)")

        _ = try terminal.repository.addIdea(title: "only in the terminal")
        _ = try terminal.repository.deleteIdea(id: try #require(try terminal.ideas().first { $0.title == "only on the phone" }).id)
        _ = try await terminal.session.overwriteRemote()
        let ideas = try await app.ideas()
        #expect(ideas.values.map(\.title) == ["only in the terminal"])
        #expect(ideas[name] == nil)
        let kept = try await phone.records(in: CoreDataIdea.zone, ofType: metadata.recordType)
        #expect(kept.map(\.recordID) == [metadata.recordID], "the app's own record stays")
    }

    @Test func aTokenICloudRefusesSaysSignedOutByICloud() async throws {
        let fixture = try SyncFixture()
        let terminal = try fixture.device("laptop", shape: .coreData) { base in
            HookedDatabase(base, before: { call in if call == .accountStatus { throw CloudError.tokenRefused } })
        }
        let served = try fixture.device("desk") { base in
            HookedDatabase(base, before: { call in if call == .accountStatus { throw CloudError.tokenRefused } })
        }
        terminal.engine.start()
        served.engine.start()
        await fixture.scheduler.runDue()
        #expect(terminal.engine.status == .signedOutByICloud)
        #expect(served.engine.status == .signedOutByServer, "a server's refusal stays the server's")
        #expect(try terminal.repository.syncMetadata().lastSyncError?.hasPrefix("Signed out by iCloud") == true)
        terminal.engine.stop()
        served.engine.stop()
    }
}
