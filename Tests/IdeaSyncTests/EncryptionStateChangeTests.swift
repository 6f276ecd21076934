import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import RemoteTestSupport
import Synchronization
import Testing

/// Through the sync engine: a device whose last look at the account's encryption is out of
/// date learns of the change from what it meets (a sealed record fetched while plain, a save
/// the remote refuses), looks again, and loses nothing: what it fetched or sent under the old
/// state is fetched or sent again under the new one.
@Suite("The encryption state changing under a device")
struct EncryptionStateChangeTests {
    @Test("A device that fetches sealed records while it saw the account plain looks again, is locked, and reads them once unlocked")
    func sealedRecordsFetchedWhilePlainArriveOnceUnlocked() throws {
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
        // fetch: the reader, plain for this sync, fetches sealed records, and looks again.
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
                base: HookedDatabase(base, before: { call in
                    guard case .fetchChanges(let zone) = call, zone != EnvelopeRecord.zone, !enabled.withLock({ $0 }) else { return }
                    enabled.withLock { $0 = true }
                    try enable()
                }),
                keyFile: readerKeys, containerID: container, random: .seeded(6))
        }
        _ = try writer.session.run()
        let idea = try writer.repository.addIdea(title: "Sealed before the reader looked")
        // The writer's idea goes up sealed inside `enable`, during the reader's first sync.
        #expect(throws: SyncFailure.locked(keyHeldHere: false)) { try reader.session.run() }
        #expect(try reader.repository.idea(id: idea.id) == nil)
        #expect(try !reader.repository.syncLog().contains { $0.message.hasPrefix("skipped an invalid remote record") })

        #expect(throws: SyncFailure.locked(keyHeldHere: false)) { try reader.session.run() }
        try readerKeys.save(made.keyring)
        _ = try reader.session.run()
        #expect(try reader.repository.idea(id: idea.id)?.title == "Sealed before the reader looked")
    }

    @Test("A save made in the window after another device turned encryption on is never stored plain: refused, the device looks again, keeps it queued while locked, and once unlocked sends it sealed to the other device")
    func aSaveInTheWindowAfterEncryptionWasTurnedOnReachesTheOtherDeviceSealed() async throws {
        let fixture = try SyncFixture()
        let folders = try (0..<2).map { _ in try Self.folder() }
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let made = try Self.keys()
        let aKeys = AccountKeyFile(directory: folders[0])
        let bKeys = AccountKeyFile(directory: folders[1])
        let betweenLookAndSend = Once()
        let a = try fixture.device("a") {
            EncryptedDatabase(base: Self.beforeModify($0, betweenLookAndSend.run), keyFile: aKeys, containerID: Self.container, random: .seeded(5))
        }
        let b = try fixture.device("b") { EncryptedDatabase(base: $0, keyFile: bKeys, containerID: Self.container, random: .seeded(6)) }
        let bEncryption = try #require(b.remote as? EncryptedDatabase)
        _ = try a.repository.addIdea(title: "Before encryption")
        _ = try a.session.run()
        _ = try b.session.run()

        // b turns encryption on (as `account encryption enable` does) after a's last look at
        // the account and before a's send reaches the remote.
        betweenLookAndSend.arm {
            _ = try EnvelopeStore(database: bEncryption.base).publish(made.envelope)
            try bKeys.save(made.keyring)
            try bEncryption.refresh()
            guard let sealed = try bEncryption.sealedDatabase() else { throw AccountLocked() }
            try RecordRewriter(raw: bEncryption.base, sealed: sealed).sealEverything([Self.ideasZone])
        }
        let window = try a.repository.addIdea(title: "Typed in the window", description: "秘密")
        #expect(throws: SyncFailure.locked(keyHeldHere: false)) { try a.session.send() }
        #expect(try a.repository.pendingChangeCount() == 1, "a counted its idea sent")
        #expect(try await fixture.remoteIdeas().isEmpty, "the remote holds an idea in clear in an encrypted account")

        try aKeys.save(made.keyring)
        _ = try a.session.run()
        _ = try b.session.run()
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try b.repository.idea(id: window.id)?.title == "Typed in the window")
        #expect(try b.snapshots() == a.snapshots())
        #expect(try await fixture.remoteIdeas().isEmpty)
    }

    @Test("A device still sealing after another device turned encryption off sends nothing sealed: refused, it is locked, keeps its idea queued, and sends it plain once it lets go of its key")
    func aSealedSaveAfterEncryptionWasTurnedOffReachesTheOtherDevicePlain() async throws {
        let fixture = try SyncFixture()
        let folders = try (0..<2).map { _ in try Self.folder() }
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let made = try Self.keys()
        let aKeys = AccountKeyFile(directory: folders[0])
        let bKeys = AccountKeyFile(directory: folders[1])
        let betweenLookAndSend = Once()
        let a = try fixture.device("a") {
            EncryptedDatabase(base: Self.beforeModify($0, betweenLookAndSend.run), keyFile: aKeys, containerID: Self.container, random: .seeded(5))
        }
        let b = try fixture.device("b") { EncryptedDatabase(base: $0, keyFile: bKeys, containerID: Self.container, random: .seeded(6)) }
        let bEncryption = try #require(b.remote as? EncryptedDatabase)
        _ = try EnvelopeStore(database: bEncryption.base).publish(made.envelope)
        try aKeys.save(made.keyring)
        try bKeys.save(made.keyring)
        _ = try a.repository.addIdea(title: "Sealed before")
        _ = try a.session.run()
        _ = try b.session.run()

        // b turns encryption off (as `account encryption disable` does: the envelope goes
        // first, then every record is opened) between a's last look and a's send.
        betweenLookAndSend.arm {
            try bEncryption.refresh()
            guard let sealed = try bEncryption.sealedDatabase() else { throw AccountLocked() }
            try EnvelopeStore(database: bEncryption.base).remove()
            try RecordRewriter(raw: bEncryption.base, sealed: sealed).openEverything([Self.ideasZone])
            try bKeys.remove()
            try bEncryption.refresh()
        }
        let late = try a.repository.addIdea(title: "Sealed too late")
        #expect(throws: SyncFailure.locked(keyHeldHere: true)) { try a.session.send() }
        #expect(try a.repository.pendingChangeCount() == 1, "a counted its idea sent")

        try aKeys.remove()
        _ = try a.session.run()
        _ = try b.session.run()
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try b.repository.idea(id: late.id)?.title == "Sealed too late")
        #expect(try b.snapshots() == a.snapshots())
        #expect(try await fixture.remoteIdeas().count == 2)
    }

    private static let container = "iCloud.com.example.IdeaBox"
    private static let ideasZone = RecordRewriter.Zone(SyncSession.zone, recordType: SyncSession.recordType)

    private static func keys() throws -> KeyEnvelope.Creation {
        try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-change-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// Work that runs once, when armed, from whichever thread calls `run` first.
private final class Once: Sendable {
    private let work = Mutex<(@Sendable () throws -> Void)?>(nil)

    /// Runs `body` at the next `run`.
    func arm(_ body: @escaping @Sendable () throws -> Void) {
        work.withLock { $0 = body }
    }

    /// Runs the armed work, if any, and disarms it.
    func run() throws {
        let armed = work.withLock { armed in
            defer { armed = nil }
            return armed
        }
        try armed?()
    }
}

extension EncryptionStateChangeTests {
    /// `base`, running `before` ahead of each modify that names a record outside the envelope's zone.
    static func beforeModify(_ base: any CloudDatabase, _ before: @escaping @Sendable () throws -> Void) -> HookedDatabase {
        HookedDatabase(base, before: { call in
            if case .modify(let zones) = call, zones.contains(where: { $0 != EnvelopeRecord.zone }) { try before() }
        })
    }
}
