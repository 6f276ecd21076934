import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import Synchronization
import Testing

/// Through the sync engine: a device that skipped records it could not read (sealed ones,
/// fetched while it still saw the account plain) reads them once it is unlocked, because its
/// plain change token expires under the sealed state and it fetches everything again.
@Suite("The encryption state changing under a device")
struct EncryptionStateChangeTests {
    @Test func recordsSkippedWhilePlainArriveOnceUnlocked() throws {
        let fixture = try SyncFixture()
        let folders = try (0..<2).map { _ in try Self.folder() }
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let made = try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
        let container = "iCloud.com.example.IdeaBox"
        let enabled = Mutex(false)
        let writerKeys = AccountKeyFile(directory: folders[0])
        let writer = try fixture.device("writer") {
            EncryptedDatabase(base: $0, keyFile: writerKeys, containerID: container, random: .seeded(5))
        }
        // Encryption turned on by the writer between the reader's look at the account and its
        // fetch: the reader, plain for this sync, fetches sealed records it skips.
        let cloud = fixture.cloud
        let session = writer.session
        let enable: @Sendable () throws -> Void = {
            let raw = cloud.database(forDevice: "writer")
            _ = try EnvelopeStore(database: raw).publish(made.envelope)
            try writerKeys.save(made.keyring)
            _ = try session.run()
        }
        let readerKeys = AccountKeyFile(directory: folders[1])
        let reader = try fixture.device("reader") { base in
            EncryptedDatabase(
                base: BeforeFirstFetch(base: base) {
                    guard !enabled.withLock({ $0 }) else { return }
                    enabled.withLock { $0 = true }
                    try enable()
                },
                keyFile: readerKeys, containerID: container, random: .seeded(6))
        }
        _ = try writer.session.run()
        let idea = try writer.repository.addIdea(title: "Sealed before the reader looked")
        // The writer's idea goes up sealed inside `enable`, during the reader's first sync.
        _ = try reader.session.run()
        #expect(try reader.repository.idea(id: idea.id) == nil)
        #expect(try reader.repository.syncLog().contains { $0.message.hasPrefix("skipped an invalid remote record") })

        #expect(throws: SyncFailure.locked(keyHeldHere: false)) { try reader.session.run() }
        try readerKeys.save(made.keyring)
        _ = try reader.session.run()
        #expect(try reader.repository.idea(id: idea.id)?.title == "Sealed before the reader looked")
        #expect(try reader.repository.syncLog().contains { $0.message == "change token expired: fetching everything again" })
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-change-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// A remote that runs `before` ahead of each fetch of changes.
private struct BeforeFirstFetch: CloudDatabase {
    let base: any CloudDatabase
    let before: @Sendable () throws -> Void

    var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }
    func accountStatus() throws -> AccountStatus { try base.accountStatus() }
    func createZone(_ zone: RecordZoneID) throws { try base.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) throws { try base.deleteZone(zone) }
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult {
        try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        if zone != EnvelopeRecord.zone { try before() }
        return try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }
    func records(in zone: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord] {
        try base.records(in: zone, ofType: recordType)
    }
    func uploadAsset(_ data: Data) throws -> AssetReference { try base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) throws -> Data { try base.fetchAsset(reference) }
}
