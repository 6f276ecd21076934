import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import Synchronization
import Testing

/// Sealing every record again (turning encryption on, rotating, disabling, resetting) over
/// each record's change tag: a save another device makes between the rewriter's read and its
/// write is read again, never overwritten.
@Suite("RecordRewriter")
struct RecordRewriterTests {
    private let made: KeyEnvelope.Creation
    private let cloud: SimulatedCloud
    private let plain: any CloudDatabase
    private let refusals = RefusalLog()
    private static let zones = [
        RecordRewriter.Zone(EncryptionFixture.ideas, recordType: "Idea"),
        RecordRewriter.Zone(EncryptionFixture.library, recordType: "RawLibraryFile"),
    ]

    init() async throws {
        made = try EncryptionFixture.creation()
        (cloud, plain) = try EncryptionFixture.remote()
        try await plain.createZone(EncryptionFixture.ideas)
        try await plain.createZone(EncryptionFixture.library)
    }

    @Test("After a rotation every record is sealed again with the new key, reads the same, and a second pass rewrites nothing")
    func rotation() async throws {
        let before = sealed(made.keyring)
        _ = try await before.modify(
            saving: (0..<7).map { EncryptionFixture.idea("idea-\($0)", title: "Zanzibar \($0)") }
                + [EncryptionFixture.libraryFile(path: "notes/秘密.md", data: .string("牛奶糖"))],
            deleting: [], savePolicy: .ifServerRecordUnchanged)
        let rotation = try made.envelope.rotated(unlockingWith: .passphrase(EncryptionFixture.passphrase), random: .seeded(2))
        let after = sealed(rotation.keyring)
        #expect(try await Set(keyIDs()) == [made.keyring.current.id])

        let raw = batched(plain)
        #expect(try await RecordRewriter(raw: raw, sealed: sealed(rotation.keyring, base: raw)).sealEverything(Self.zones) == 8)
        #expect((raw as? RacingDatabase)?.saveRequests == 4, "7 ideas in batches of 3, then 1 file")
        #expect(try await Set(keyIDs()) == [rotation.keyring.current.id])
        #expect(try await keyIDs().count == 8)
        let titles = try await after.records(in: EncryptionFixture.ideas, ofType: "Idea").compactMap(\.["title"])
        #expect(Set(titles) == Set((0..<7).map { FieldValue.string("Zanzibar \($0)") }))
        #expect(try await after.records(in: EncryptionFixture.library, ofType: "RawLibraryFile").map(\.["path"]) == [.string("notes/秘密.md")])
        #expect(try await RecordRewriter(raw: plain, sealed: after).sealEverything(Self.zones) == 0)
        #expect(refusals.failures.isEmpty)
    }

    @Test("Turning encryption on: an idea another device saves between the read and the write is sealed as that device saved it")
    func concurrentSaveWhileSealing() async throws {
        _ = try await plain.modify(
            saving: [EncryptionFixture.idea("a", title: "old title"), EncryptionFixture.idea("b", title: "untouched")],
            deleting: [], savePolicy: .ifServerRecordUnchanged)
        let racing = RacingDatabase(base: plain) { base in
            // Another device (still plain) saves "a" over the tag it read.
            var current = try await base.records(in: EncryptionFixture.ideas, ofType: "Idea").first { $0.recordID.recordName == "a" }!
            current["title"] = .string("saved meanwhile")
            let result = try await base.modify(saving: [current], deleting: [], savePolicy: .ifServerRecordUnchanged)
            try #require(result.failures.isEmpty)
        }
        let view = sealed(made.keyring, base: racing)
        #expect(try await RecordRewriter(raw: racing, sealed: view).sealEverything(Self.zones) == 2)
        #expect(racing.races == 1)
        let opened = try await view.records(in: EncryptionFixture.ideas, ofType: "Idea")
        #expect(Set(opened.compactMap(\.["title"])) == [.string("saved meanwhile"), .string("untouched")])
        #expect(try await Set(keyIDs()) == [made.keyring.current.id], "no plain copy left")
    }

    @Test("Turning encryption off: a record another device seals between the read and the write comes back plain as it was sealed")
    func concurrentSaveWhileOpening() async throws {
        let view = sealed(made.keyring)
        _ = try await view.modify(
            saving: [EncryptionFixture.idea("a", title: "old title"), EncryptionFixture.idea("b", title: "untouched")],
            deleting: [], savePolicy: .ifServerRecordUnchanged)
        let racing = RacingDatabase(base: plain) { _ in
            var current = try await view.records(in: EncryptionFixture.ideas, ofType: "Idea").first { $0.recordID.recordName == "a" }!
            current["title"] = .string("sealed meanwhile")
            let result = try await view.modify(saving: [current], deleting: [], savePolicy: .ifServerRecordUnchanged)
            try #require(result.failures.isEmpty)
        }
        let rewriter = RecordRewriter(raw: racing, sealed: sealed(made.keyring, base: racing))
        #expect(try await rewriter.openEverything(Self.zones) == 2)
        #expect(racing.races == 1)
        let stored = try await plain.records(in: EncryptionFixture.ideas, ofType: "Idea")
        #expect(Set(stored.compactMap(\.["title"])) == [.string("sealed meanwhile"), .string("untouched")])
        #expect(stored.allSatisfy { $0[RecordSealer.sealedField] == nil })
    }

    @Test("A record that keeps changing is given up after the last round, with the remote's error")
    func endlessRace() async throws {
        _ = try await plain.modify(saving: [EncryptionFixture.idea("a", title: "first")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        let racing = RacingDatabase(base: plain, every: true) { base in
            var current = try await base.records(in: EncryptionFixture.ideas, ofType: "Idea")[0]
            current["title"] = .string("again")
            _ = try await base.modify(saving: [current], deleting: [], savePolicy: .ifServerRecordUnchanged)
        }
        await #expect(throws: CloudError.self) {
            try await RecordRewriter(raw: racing, sealed: sealed(made.keyring, base: racing)).sealEverything(Self.zones)
        }
        #expect(racing.races == RecordRewriter.maximumRounds)
    }

    @Test("A reset removes every record no key of the new keyring opens, plain ones too; what is left is what the new key opens")
    func removeUnreadable() async throws {
        _ = try await sealed(made.keyring).modify(
            saving: [EncryptionFixture.idea("a", title: "old key")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        _ = try await plain.modify(saving: [EncryptionFixture.idea("b", title: "plain")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        let reset = try KeyEnvelope.make(passphrase: "new words", scrypt: EncryptionFixture.fastScrypt, random: .seeded(9))
        let view = sealed(reset.keyring)
        _ = try await view.modify(saving: [EncryptionFixture.idea("c", title: "new key")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        let rewriter = RecordRewriter(raw: plain, sealed: view)
        #expect(try await Self.readableCounts(rewriter) == [1, 0], "only c opens with the new key")
        #expect(try await rewriter.removeUnreadable(Self.zones) == 2)
        #expect(try await Self.readableCounts(rewriter) == [1, 0])
        var left = try await plain.records(in: EncryptionFixture.ideas, ofType: "Idea")
        left += try await plain.records(in: EncryptionFixture.ideas, ofType: RecordSealer.sealedType(of: "Idea"))
        #expect(left.map(\.recordID.recordName) == ["c"])
    }

    // MARK: Helpers

    /// How many records of each of `zones` the rewriter's keyring opens.
    private static func readableCounts(_ rewriter: RecordRewriter) async throws -> [Int] {
        var counts: [Int] = []
        for zone in zones { counts.append(try await rewriter.readableCount(zone)) }
        return counts
    }

    private func sealed(_ keyring: AccountKeyring, base: (any CloudDatabase)? = nil) -> SealedDatabase {
        SealedDatabase(base: base ?? plain, sealer: EncryptionFixture.sealer(keyring), report: refusals.sink)
    }

    /// The key id of every sealed record on the remote.
    private func keyIDs() async throws -> [AccountKeyID] {
        let sealer = EncryptionFixture.sealer(made.keyring)
        var records: [RemoteRecord] = []
        for zone in Self.zones {
            records += try await plain.records(in: zone.zone, ofType: RecordSealer.sealedType(of: zone.recordType))
        }
        return records.map { sealer.keyID(of: $0) ?? AccountKeyID(bytes: [UInt8](repeating: 0, count: 8))! }
    }

    private func batched(_ base: any CloudDatabase) -> any CloudDatabase {
        RacingDatabase(base: base, maximumRecordsPerRequest: 3) { _ in }
    }
}
