import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import Synchronization
import Testing

/// A device of a release before encryption, still signed in to an account that turned it on,
/// never overwrites a sealed record with a plain one, and loses nothing of its own.
///
/// Its sync is this release's `SyncSession` over the plain remote: the session, `IdeaRecord`
/// and the store's merge are unchanged since that release (`git diff a089402 -- Sources/IdeaSync`
/// adds only a constant), so it sends exactly what that release sends: a plain `Idea` save
/// with the change tag it last saw, and on "overwrite the remote" a listing of `Idea`
/// records, then its own version of each over the tags the listing showed.
@Suite("A device older than encryption")
struct OlderDeviceTests {
    private let fixture: SyncFixture
    private let sealer: RecordSealer
    private let zones = [RecordRewriter.Zone(SyncSession.zone, recordType: SyncSession.recordType)]

    init() throws {
        fixture = try SyncFixture()
        let made = try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
        sealer = RecordSealer(keyring: made.keyring, containerID: "iCloud.com.example.IdeaBox", hiddenNameZones: [], random: .seeded(2))
    }

    /// The remote as it stores things, read by a device of no account's own.
    private var raw: any CloudDatabase {
        get throws {
            try fixture.cloud.network.signIn(device: "observer", account: SimulatedCloud.defaultAccount)
            return fixture.cloud.database(forDevice: "observer")
        }
    }

    /// An account with an idea on an old device and a new one, then encryption turned on (what
    /// `account encryption enable` does to the records: every one sealed in place).
    private func encryptedAccount() async throws -> (old: Device, new: Device, idea: Idea) {
        let old = try fixture.device("old")
        let idea = try old.repository.addIdea(title: "Plan the trip", description: "by train")
        _ = try await old.session.run()
        let raw = try raw
        try await RecordRewriter(raw: raw, sealed: SealedDatabase(base: raw, sealer: sealer, report: { _ in })).sealEverything(zones)
        let sealedOnly = try await stored()
        #expect(sealedOnly.plain.isEmpty && sealedOnly.sealed.count == 1)
        let new = try fixture.device("new") { SealedDatabase(base: $0, sealer: sealer, report: { _ in }) }
        _ = try await new.session.run()
        #expect(try new.repository.idea(id: idea.id)?.title == "Plan the trip")
        return (old, new, idea)
    }

    /// The server's records of the ideas' zone: the sealed ones and any plain ones.
    private func stored() async throws -> (sealed: [RemoteRecord], plain: [RemoteRecord]) {
        let raw = try raw
        return (
            try await raw.records(in: SyncSession.zone, ofType: RecordSealer.sealedType(of: SyncSession.recordType)),
            try await raw.records(in: SyncSession.zone, ofType: SyncSession.recordType))
    }

    @Test func anOldDevicesEditMeetsAConflictItCannotReadAndStaysQueuedThere() async throws {
        let (old, new, idea) = try await encryptedAccount()
        let sealedBefore = try await stored().sealed
        _ = try old.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip, old device"))

        await #expect(throws: SyncFailure.self) { try await old.session.run() }
        #expect(try await stored().sealed == sealedBefore, "the sealed record is untouched")
        #expect(try await stored().plain.isEmpty, "no plain copy was written")
        #expect(try old.repository.idea(id: idea.id)?.title == "Plan the trip, old device", "the old device keeps its edit")
        #expect(try old.repository.pendingChangeCount() == 1, "and keeps it queued")
        #expect(try old.repository.syncLog().contains { $0.message.hasPrefix("skipped an invalid remote record") })
        _ = try await new.session.run()
        #expect(try new.repository.idea(id: idea.id)?.title == "Plan the trip")
    }

    @Test func anOldDevicesOverwriteOfTheRemoteNeitherReplacesNorDeletesASealedRecord() async throws {
        let (old, new, idea) = try await encryptedAccount()
        let sealedBefore = try await stored().sealed

        await #expect(throws: SyncFailure.self) { try await old.session.overwriteRemote() }
        #expect(try await stored().sealed == sealedBefore)
        #expect(try await stored().plain.isEmpty)
        _ = try await new.session.run()
        #expect(try new.repository.idea(id: idea.id)?.title == "Plan the trip")
        #expect(try new.repository.pendingChangeCount() == 0)
    }

    @Test func anIdeaNewOnTheOldDeviceGoesUpPlainAndTheNewDeviceRefusesItWithALine() async throws {
        let (old, new, _) = try await encryptedAccount()
        let refusals = Mutex<[OpenFailure]>([])
        let watching = try fixture.device("watching") { SealedDatabase(base: $0, sealer: sealer, report: { failure in refusals.withLock { $0.append(failure) } }) }
        let added = try old.repository.addIdea(title: "Written on the old device")
        _ = try await old.session.run()

        #expect(try await stored().plain.map(\.recordID.recordName) == [added.id.lowercasedString])
        _ = try await watching.session.run()
        #expect(try watching.repository.idea(id: added.id) == nil)
        #expect(refusals.withLock { $0 }.map(\.reason) == [.notSealed])
        _ = try await new.session.run()
        #expect(try await stored().sealed.count == 1)
    }
}
