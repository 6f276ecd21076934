import AccountEncryption
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import LibrarySync
import RemoteTestSupport
import EmbeddedRemote
import ServerStore
import Testing

/// What is at the app's limits plain still fits once sealed, through `ideabox serve` (which
/// refuses a record over 1 MB of fields): an idea at the longest title and description, and a
/// library file at the largest size that travels inline.
@Suite("Sealed records at the app's limits")
struct SealingMarginTests {
    private let fixture: SyncFixture
    private let sealer: RecordSealer

    init() async throws {
        fixture = try await SyncFixture(remote: .served)
        let made = try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
        sealer = RecordSealer(
            keyring: made.keyring, containerID: "iCloud.com.example.IdeaBox", hiddenNameZones: [LibrarySession.zone], random: .seeded(2))
    }

    private func sealed(_ base: any CloudDatabase) -> any CloudDatabase {
        SealedDatabase(base: base, sealer: sealer, report: { failure in Issue.record("refused: \(failure)") })
    }

    @Test func anIdeaAtTheLongestTitleAndDescriptionSyncsSealed() async throws {
        let a = try fixture.device("a", client: sealed)
        let b = try fixture.device("b", client: sealed)
        // A family emoji is one character of 25 bytes: the most bytes a title or description
        // of common text reaches at its length limit.
        let family = "👨‍👩‍👧‍👦"
        let idea = try a.repository.addIdea(
            title: String(repeating: family, count: IdeaLimits.titleLength),
            description: String(repeating: family, count: IdeaLimits.descriptionLength))
        _ = try await a.session.run()
        #expect(try a.repository.pendingChangeCount() == 0)
        _ = try await b.session.run()
        #expect(try b.repository.idea(id: idea.id).map(IdeaSnapshot.init) == IdeaSnapshot(idea))
    }

    @Test func aLibraryFileAtTheLargestInlineSizeSyncsSealedAndOneByteMoreGoesAsAnAsset() async throws {
        let folders = try (0..<2).map { _ in try Self.folder() }
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let a = try fixture.device("a", client: sealed)
        let b = try fixture.device("b", client: sealed)
        let sending = LibrarySession(root: folders[0], database: a.remote, clock: fixture.scheduler.clock)
        let receiving = LibrarySession(root: folders[1], database: b.remote, clock: fixture.scheduler.clock)
        let names = "filename".utf8.count + "path".utf8.count + "filedata".utf8.count
        let inline = LibrarySession.maximumRecordBytes - LibrarySession.sealingMargin - names - "inline.json".utf8.count - "Items/inline.json".utf8.count
        let files = ["Items/inline.json": Self.json(bytes: inline), "Items/asset.json": Self.json(bytes: inline + 20)]
        try FileManager.default.createDirectory(at: folders[0].appendingPathComponent("Items"), withIntermediateDirectories: true)
        for (path, data) in files { try data.write(to: folders[0].appendingPathComponent(path)) }

        let sent = try await sending.sync()
        #expect(sent.uploaded == 2)
        let received = try await receiving.sync()
        #expect(received.downloaded == 2)
        for (path, data) in files {
            #expect(try Data(contentsOf: folders[1].appendingPathComponent(path)) == data, "\(path)")
        }
        let raw = try await fixture.store.recordsForTest(in: LibrarySession.zone, ofType: RecordSealer.sealedType(of: LibrarySession.recordType))
        #expect(raw.filter { $0.fields[RecordSealer.assetsField] != nil }.count == 1, "one inline, one asset")
    }

    @Test func sealingAddsLessThanTheMarginToARecord() throws {
        let path = "FavoriteItems/" + String(repeating: "長", count: 60) + ".json"
        let plain = RemoteRecord(
            recordType: LibrarySession.recordType, recordID: RecordID(recordName: String(repeating: "a", count: 64), zoneID: LibrarySession.zone),
            fields: ["filename": .string(String(path.split(separator: "/").last!)), "path": .string(path), "filedata": .bytes(Data(count: 1000))])
        let sealedRecord = sealer.seal(plain)
        #expect(Self.size(sealedRecord.fields) - Self.size(plain.fields) == 132)
        #expect(Self.size(sealedRecord.fields) - Self.size(plain.fields) < LibrarySession.sealingMargin)

        let idea = IdeaRecordShape.record(title: "Plan the trip to 台南", description: "by train")
        // An idea: 133 bytes more sealed, whatever its text (the framing of ten fields).
        #expect(Self.size(sealer.seal(idea).fields) - Self.size(idea.fields) == 133)
    }

    /// A record's size as `serve` counts it against its 1 MB: names and values, in bytes.
    private static func size(_ fields: [String: FieldValue]) -> Int {
        func size(_ value: FieldValue) -> Int {
            switch value {
            case .string(let text): text.utf8.count
            case .bytes(let data): data.count
            case .list(let items): items.reduce(0) { $0 + size($1) }
            case .int64, .double, .timestamp: 8
            case .asset: 72
            case .reference(let reference): reference.recordName.utf8.count + (reference.zoneName?.utf8.count ?? 0) + 16
            case .location: 64
            }
        }
        return fields.reduce(0) { $0 + $1.key.utf8.count + size($1.value) }
    }

    /// A JSON file of exactly `bytes` bytes.
    private static func json(bytes: Int) -> Data {
        Data(("{\"a\":\"" + String(repeating: "x", count: bytes - 8) + "\"}").utf8)
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sealing-margin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

extension RecordStore {
    /// The records of `recordType` in `zone` of the default account, read from the store.
    func recordsForTest(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await records(account: SimulatedCloud.defaultAccount, in: zone, ofType: recordType, after: nil, limit: 100_000)
    }
}

/// An idea record as IdeaSync sends one.
private enum IdeaRecordShape {
    static func record(title: String, description: String) -> RemoteRecord {
        let now = Timestamp(milliseconds: 1_764_061_200_000)
        return RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: "2f1c0000-0000-4000-8000-000000000001", zoneID: SyncSession.zone),
            fields: [
                "id": .string("2f1c0000-0000-4000-8000-000000000001"), "title": .string(title), "description": .string(description),
                "isCompleted": .int64(0), "createdAt": .timestamp(now), "updatedAt": .timestamp(now),
                "deviceId": .string("2f1c0000-0000-4000-8000-0000000000aa"), "version": .int64(3), "isDeleted": .int64(0),
                "fieldStamps": .string("1764061200000;1764061200000;1764061200000"),
            ])
    }
}
