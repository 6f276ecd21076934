import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import ProcessTestSupport
import RemoteTestSupport
import Testing
@testable import IdeaSync

/// `CoreDataIdea`, the app's `CD_Idea` records both ways, checked against the iPhone app's
/// own reading and writing (`IPhoneApp`, written from Apple's mapping), against whole
/// records as the app writes them (`Tests/Fixtures/CoreData`), and through a remote
/// (`IPhoneAppDevice` on the embedded one).
@Suite struct CoreDataIdeaTests {
    static let laptop = "3f2a9c1e-laptop"

    static func idea(title: String, description: String = "", isCompleted: Bool = false) -> Idea {
        Idea(
            id: UUID(uuidString: "2E7B1C4D-8A9F-4B3C-9D1E-0F5A6B7C8D9E")!, title: title, description: description,
            isCompleted: isCompleted, createdAt: Timestamp(milliseconds: 1_762_761_600_000),
            updatedAt: Timestamp(milliseconds: 1_762_761_700_250), deviceId: laptop, version: 3)
    }

    // MARK: The app's records, read here

    @Test func anIdeaTheAppWroteReadsWithItsIdItsFieldsAndItsWriter() throws {
        let record = try IPhoneApp.fixture("app-idea")
        guard case .idea(let idea, let stamps) = CoreDataIdea.read(record) else {
            Issue.record("not read as an idea: \(CoreDataIdea.read(record))")
            return
        }
        #expect(idea.id == UUID(uuidString: "51BAFD98-D1F7-472F-95D6-BBF40D7CBD75"), "the app's id, not the record's name")
        #expect(idea.title == "學習 SwiftData 的同步")
        #expect(idea.description == "在 iPhone 上寫下的靈感。")
        #expect(!idea.isCompleted)
        #expect(idea.createdAt == Timestamp(milliseconds: 1_762_761_600_000))
        #expect(idea.updatedAt == Timestamp(milliseconds: 1_762_761_600_123))
        #expect(idea.deviceId == "0F6E2C1A-9B8D-4E7F-A3C2-5D4B1E0F9A87")
        let written = SyncOrder(timestamp: idea.updatedAt, deviceId: idea.deviceId)
        #expect(stamps == FieldStamps(title: written, description: written, isCompleted: written), "no stamps of ours: the app's updatedAt and lastModifiedBy")
        #expect(try IPhoneApp.read(record)?.id == idea.id, "the app reads its own fixture")
    }

    @Test func aDoneIdeaWithAnEmojiTitleAndNoDescription() throws {
        let record = try IPhoneApp.fixture("app-idea-done-emoji")
        guard case .idea(let idea, _) = CoreDataIdea.read(record) else {
            Issue.record("not read as an idea")
            return
        }
        #expect(idea.title == "🚀 發射 Launch 🎉")
        #expect(idea.description.isEmpty)
        #expect(idea.isCompleted)
        #expect(idea.deviceId == "unknown")
    }

    @Test func aDescriptionMovedIntoAnAssetIsAskedForThenRead() throws {
        let record = try IPhoneApp.fixture("app-idea-description-asset")
        let needed = CoreDataIdea.assetsNeeded(by: record)
        #expect(Array(needed.keys) == ["CD_description_ckAsset"])
        #expect(needed["CD_description_ckAsset"]?.size == 90)
        #expect(CoreDataIdea.read(record) == .needsAssets(needed))
        let text = String(repeating: "長描述", count: 10)
        guard case .idea(let idea, _) = CoreDataIdea.read(record, assetTexts: ["CD_description_ckAsset": text]) else {
            Issue.record("not read as an idea with its asset")
            return
        }
        #expect(idea.description == text)
        #expect(try IPhoneApp.read(record, assetTexts: ["CD_description_ckAsset": text])?.description == text)
    }

    @Test func recordsOfAnotherEntityAreLeftAlone() throws {
        let metadata = try IPhoneApp.fixture("app-sync-metadata")
        #expect(CoreDataIdea.read(metadata) == .notAnIdea)
        #expect(try IPhoneApp.read(metadata) == nil)
        var subentity = try IPhoneApp.fixture("app-idea")
        subentity.fields["CD_entityName"] = .string("IdeaDraft")
        #expect(CoreDataIdea.read(subentity) == .notAnIdea, "another entity of the same record type")
    }

    @Test func brokenValuesAreNoIdea() throws {
        let good = try IPhoneApp.fixture("app-idea")
        let breakings: [(String, FieldValue?)] = [
            ("CD_id", .string("not-a-uuid")), ("CD_id", nil), ("CD_title", .int64(1)), ("CD_title", .string("")),
            ("CD_isCompleted", .string("yes")), ("CD_updatedAt", .string("yesterday")),
            ("CD_createdAt", .int64(5)), ("CD_title", .string(String(repeating: "字", count: 300))),
        ]
        for (field, value) in breakings {
            var record = good
            record.fields[field] = value
            #expect(CoreDataIdea.read(record) == .notAnIdea, "\(field) = \(String(describing: value))")
        }
    }

    // MARK: The terminal's records, read by the app

    @Test(arguments: [
        idea(title: "Plain ASCII", description: "short"),
        idea(title: "全形標題：同步測試", description: ""),
        idea(title: "🎉 emoji 👨‍👩‍👧 title", description: "中文描述 with mixed 文字", isCompleted: true),
        idea(title: "Four thousand ninety-six", description: String(repeating: "說", count: 4096)),
    ])
    func anIdeaWrittenHereIsTheAppsIdeaAndReadsBackTheSame(_ idea: Idea) throws {
        let stamps = FieldStamps(
            title: SyncOrder(timestamp: Timestamp(milliseconds: 1_762_761_650_000), deviceId: Self.laptop),
            description: SyncOrder(timestamp: Timestamp(milliseconds: 1_762_761_700_250), deviceId: Self.laptop),
            isCompleted: SyncOrder(timestamp: Timestamp(milliseconds: 1_762_761_600_000), deviceId: Self.laptop))
        let record = CoreDataIdea.record(
            for: idea, stamps: stamps, recordName: CoreDataIdea.recordName(forNew: idea.id), tag: nil)
        #expect(record.recordType == "CD_Idea")
        #expect(record.recordID.zoneID.zoneName == "com.apple.coredata.cloudkit.zone")
        let app = try #require(try IPhoneApp.read(record))
        #expect(app == IPhoneApp.Idea(
            id: idea.id, title: idea.title, description: idea.description, isCompleted: idea.isCompleted,
            createdAt: idea.createdAt.date, updatedAt: idea.updatedAt.date, lastModifiedBy: Self.laptop))
        var expected = idea
        expected.version = 0
        #expect(CoreDataIdea.read(record) == .idea(expected, stamps), "our stamps come back from the field the app ignores")
    }

    @Test func theAppFailsARecordMissingAnAttributeOrOfTheWrongType() throws {
        let record = CoreDataIdea.record(
            for: Self.idea(title: "t"), stamps: FieldStamps(legacy: Self.idea(title: "t")), recordName: "r", tag: nil)
        for attribute in CoreDataIdea.Attribute.allCases {
            var missing = record
            missing.fields[attribute.field] = nil
            #expect(throws: IPhoneApp.ReadError.self, "without \(attribute.field)") { try IPhoneApp.read(missing) }
        }
        var wrongType = record
        wrongType.fields["CD_isCompleted"] = .string("1")
        #expect(throws: IPhoneApp.ReadError.self) { try IPhoneApp.read(wrongType) }
        var wrongEntity = record
        wrongEntity.fields["CD_entityName"] = .string("Note")
        #expect(throws: IPhoneApp.ReadError.self) { try IPhoneApp.read(wrongEntity) }
    }

    // MARK: Both writing

    @Test func anEditTheAppMakesAfterOursStampsTheFieldsItChangedWithTheAppsTimeAndDevice() throws {
        let ours = Self.idea(title: "from the terminal", description: "before")
        let stamps = FieldStamps(
            title: SyncOrder(timestamp: Timestamp(milliseconds: 1_762_761_650_000), deviceId: Self.laptop),
            description: SyncOrder(timestamp: ours.updatedAt, deviceId: Self.laptop),
            isCompleted: SyncOrder(timestamp: ours.createdAt, deviceId: Self.laptop))
        var record = CoreDataIdea.record(for: ours, stamps: stamps, recordName: "n", tag: "t1")
        // The app's update sets its own attributes and leaves the field it does not know.
        var edit = try #require(try IPhoneApp.read(record))
        edit.description = "edited on the phone"
        edit.updatedAt = Date(timeIntervalSince1970: 1_762_762_000)
        edit.lastModifiedBy = "0F6E2C1A-9B8D-4E7F-A3C2-5D4B1E0F9A87"
        record.fields.merge(IPhoneApp.record(edit, recordName: "n").fields) { _, new in new }
        #expect(record.fields[CoreDataIdea.stampsField] != nil, "our stamps are still there")
        guard case .idea(let idea, let read) = CoreDataIdea.read(record) else {
            Issue.record("not read as an idea")
            return
        }
        #expect(idea.description == "edited on the phone")
        let phone = SyncOrder(timestamp: Timestamp(milliseconds: 1_762_762_000_000), deviceId: edit.lastModifiedBy)
        #expect(read == FieldStamps(title: stamps.title, description: phone, isCompleted: stamps.isCompleted), "the title and done flag it left keep ours")
        #expect(idea.updatedAt == phone.timestamp && idea.deviceId == phone.deviceId)

        // Without the hashes of the values stamped (an older writer), no stamp can be trusted.
        record.fields[CoreDataIdea.hashesField] = nil
        guard case .idea(_, let unhashed) = CoreDataIdea.read(record) else {
            Issue.record("not read as an idea")
            return
        }
        #expect(unhashed == FieldStamps(all: phone))
    }

    @Test func aFieldTheAppSetBackToItsStampedValueKeepsItsStamp() throws {
        let ours = Self.idea(title: "same", description: "same")
        let stamps = FieldStamps(all: SyncOrder(ours))
        var record = CoreDataIdea.record(for: ours, stamps: stamps, recordName: "n", tag: "t1")
        var edit = try #require(try IPhoneApp.read(record))
        edit.isCompleted = true
        edit.updatedAt = Date(timeIntervalSince1970: 1_762_762_000)
        edit.lastModifiedBy = "0F6E2C1A-9B8D-4E7F-A3C2-5D4B1E0F9A87"
        record.fields.merge(IPhoneApp.record(edit, recordName: "n").fields) { _, new in new }
        guard case .idea(_, let read) = CoreDataIdea.read(record) else {
            Issue.record("not read as an idea")
            return
        }
        let phone = SyncOrder(timestamp: Timestamp(milliseconds: 1_762_762_000_000), deviceId: edit.lastModifiedBy)
        #expect(read == FieldStamps(title: stamps.title, description: stamps.description, isCompleted: phone))
        #expect(CoreDataIdea.valueHash(.title, of: ours) != CoreDataIdea.valueHash(.description, of: Self.idea(title: "same", description: "Same")))
    }

    // MARK: Through a remote

    /// The embedded remote, the app on one device of its account, and this device's client.
    static func remote() throws -> (app: IPhoneAppDevice, terminal: any CloudDatabase) {
        let cloud = try SimulatedCloud.inMemory(clock: ManualClock(start: TestTime.start).wallClock)
        return (IPhoneAppDevice(database: cloud.database(forDevice: "iphone")), cloud.database(forDevice: "laptop"))
    }

    /// Every idea in Core Data's zone as this device reads it, by id.
    static func ideasHere(_ database: any CloudDatabase) async throws -> [UUID: Idea] {
        var ideas: [UUID: Idea] = [:]
        for record in try await database.records(in: CoreDataIdea.zone, ofType: CoreDataIdea.recordType) {
            if case .idea(let idea, _) = CoreDataIdea.read(record) { ideas[idea.id] = idea }
        }
        return ideas
    }

    @Test func theAppsIdeasSavedThroughARemoteReadHereByTheirIds() async throws {
        let (app, terminal) = try Self.remote()
        try await app.prepare()
        let long = String(repeating: "長", count: 4096)
        let ideas = [
            IPhoneApp.Idea(
                id: UUID(), title: "在手機上寫的 📱", description: long, isCompleted: false,
                createdAt: Date(timeIntervalSince1970: 1_762_761_600), updatedAt: Date(timeIntervalSince1970: 1_762_761_600.5),
                lastModifiedBy: ""),
            IPhoneApp.Idea(
                id: UUID(), title: "Done on the phone", description: "", isCompleted: true,
                createdAt: Date(timeIntervalSince1970: 1_762_761_700), updatedAt: Date(timeIntervalSince1970: 1_762_761_800),
                lastModifiedBy: ""),
        ]
        for idea in ideas { try await app.save(idea) }
        let here = try await Self.ideasHere(terminal)
        #expect(here.count == 2)
        for idea in ideas {
            let read = try #require(here[idea.id])
            #expect(read.title == idea.title && read.description == idea.description && read.isCompleted == idea.isCompleted)
            #expect(read.updatedAt == Timestamp(idea.updatedAt) && read.deviceId == app.deviceId)
        }
    }

    @Test func anIdeaSavedHereIsTheAppsAndItsEditThereKeepsOurStampsAside() async throws {
        let (app, terminal) = try Self.remote()
        try await app.prepare()
        let ours = Self.idea(title: "從終端機來的", description: "before")
        let name = CoreDataIdea.recordName(forNew: ours.id)
        let saved = try await terminal.modify(
            saving: [CoreDataIdea.record(for: ours, stamps: FieldStamps(legacy: ours), recordName: name, tag: nil)], deleting: [],
            savePolicy: .ifServerRecordUnchanged)
        #expect(saved.failures.isEmpty)
        var seen = try #require(try await app.ideas()[name])
        #expect(seen.id == ours.id && seen.title == ours.title && seen.lastModifiedBy == Self.laptop)
        seen.description = "edited on the phone"
        seen.updatedAt = Date(timeIntervalSince1970: 1_762_762_000)
        try await app.save(seen, recordName: name)
        let record = try #require(try await app.record(named: name))
        #expect(record.fields[CoreDataIdea.stampsField] != nil, "the app's edit left our field")
        guard case .idea(let idea, let stamps) = CoreDataIdea.read(record) else {
            Issue.record("not read as an idea")
            return
        }
        #expect(idea.description == "edited on the phone" && idea.deviceId == app.deviceId)
        let phone = SyncOrder(timestamp: Timestamp(milliseconds: 1_762_762_000_000), deviceId: app.deviceId)
        let legacy = FieldStamps(legacy: ours)
        #expect(stamps == FieldStamps(title: legacy.title, description: phone, isCompleted: legacy.isCompleted))
    }

    @Test func aDeleteByTheAppIsTheRecordsDeletionInTheZonesChanges() async throws {
        let (app, terminal) = try Self.remote()
        try await app.prepare()
        let name = try await app.save(IPhoneApp.Idea(
            id: UUID(), title: "soon gone", description: "", isCompleted: false, createdAt: Date(timeIntervalSince1970: 1_762_761_600),
            updatedAt: Date(timeIntervalSince1970: 1_762_761_600), lastModifiedBy: ""))
        let before = try await terminal.fetchChanges(in: CoreDataIdea.zone, since: nil, resultsLimit: 100)
        try await app.delete(recordName: name)
        let after = try await terminal.fetchChanges(in: CoreDataIdea.zone, since: before.token, resultsLimit: 100)
        #expect(after.deleted.map(\.recordID.recordName) == [name])
        #expect(try await app.ideas().isEmpty)
    }

}
