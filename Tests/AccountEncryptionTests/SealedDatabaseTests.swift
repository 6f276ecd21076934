import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import Testing

@Suite("SealedDatabase")
struct SealedDatabaseTests {
    private let made: KeyEnvelope.Creation
    private let cloud: SimulatedCloud
    private let plain: any CloudDatabase
    private let refusals = RefusalLog()
    private let sealed: SealedDatabase

    init() throws {
        made = try EncryptionFixture.creation()
        (cloud, plain) = try EncryptionFixture.remote()
        sealed = SealedDatabase(base: plain, sealer: EncryptionFixture.sealer(made.keyring), report: refusals.sink)
        try sealed.createZone(EncryptionFixture.ideas)
        try sealed.createZone(EncryptionFixture.library)
    }

    @Test("Ideas saved through it arrive plain through it and sealed underneath; tombstones too")
    func ideasRoundTrip() throws {
        let ideas = [
            EncryptionFixture.idea("a", title: "Buy milk", description: "before Friday"),
            EncryptionFixture.idea("b", title: "買牛奶", description: "星期五之前"),
            EncryptionFixture.idea("c", title: "", deleted: true),
        ]
        let result = try sealed.modify(saving: ideas, deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(result.saved.map(\.fields) == ideas.map(\.fields))
        #expect(result.saved.allSatisfy { $0.changeTag != nil })
        let changes = try sealed.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 100)
        #expect(Set(changes.changed.map(\.fields)) == Set(ideas.map(\.fields)))
        #expect(try sealed.records(in: EncryptionFixture.ideas, ofType: "Idea").count == 3)
        let underneath = try plain.records(in: EncryptionFixture.ideas, ofType: "SealedIdea")
        #expect(try plain.records(in: EncryptionFixture.ideas, ofType: "Idea").isEmpty)
        #expect(underneath.count == 3)
        #expect(underneath.allSatisfy { Set($0.fields.keys) == [RecordSealer.sealedField] })
        #expect(refusals.failures.isEmpty)
    }

    @Test("A conflict's server record comes back opened")
    func conflict() throws {
        let first = try sealed.modify(
            saving: [EncryptionFixture.idea("a", title: "first")], deleting: [], savePolicy: .ifServerRecordUnchanged)
        var stale = EncryptionFixture.idea("a", title: "second")
        stale.changeTag = "not-the-tag"
        let result = try sealed.modify(saving: [stale], deleting: [], savePolicy: .ifServerRecordUnchanged)
        guard case .serverRecordChanged(let server?)? = result.failures[stale.recordID] else {
            Issue.record("expected a conflict, got \(result.failures)")
            return
        }
        #expect(server.recordID == stale.recordID)
        #expect(server["title"] == .string("first"))
        #expect(server.changeTag == first.saved[0].changeTag)
    }

    @Test("Library records go up under hidden names and come back, deletions included, under their plain ones")
    func libraryNames() throws {
        let paths = ["Favorite.json", "Items/秘密計畫.json"]
        let files = paths.map { EncryptionFixture.libraryFile(path: $0, data: .bytes(Data("{\"a\":1}".utf8))) }
        _ = try sealed.modify(saving: files, deleting: [], savePolicy: .allKeys)
        let underneath = try plain.records(in: EncryptionFixture.library, ofType: "SealedRawLibraryFile").map(\.recordID.recordName)
        #expect(underneath.count == 2)
        #expect(Set(underneath).isDisjoint(with: files.map(\.recordID.recordName)))
        let first = try sealed.fetchChanges(in: EncryptionFixture.library, since: nil, resultsLimit: 100)
        #expect(Set(first.changed.map(\.recordID)) == Set(files.map(\.recordID)))

        let deleted = try sealed.modify(saving: [], deleting: [files[1].recordID], savePolicy: .allKeys)
        #expect(deleted.deleted == [files[1].recordID])
        // A device that starts afresh knows the names from its manifest.
        let fresh = SealedDatabase(base: plain, sealer: EncryptionFixture.sealer(made.keyring), report: refusals.sink)
        fresh.rememberPlainNames(files.map(\.recordID.recordName), in: EncryptionFixture.library)
        let next = try fresh.fetchChanges(in: EncryptionFixture.library, since: first.token, resultsLimit: 100)
        #expect(next.deleted.map(\.recordID) == [files[1].recordID])
        #expect(refusals.failures.isEmpty)
    }

    @Test("Turning encryption on deletes no library file: the plain copies' deletions are left out, a real deletion still arrives")
    func sealingTheLibraryDeletesNoFile() throws {
        let files = Self.libraryFiles()
        _ = try plain.modify(saving: files, deleting: [], savePolicy: .allKeys)
        let zones = [RecordRewriter.Zone(EncryptionFixture.library, recordType: "RawLibraryFile")]
        #expect(try RecordRewriter(raw: plain, sealed: sealed).sealEverything(zones) == files.count)
        #expect(try plain.records(in: EncryptionFixture.library, ofType: "RawLibraryFile").isEmpty)

        // A device that synced them plain fetches everything again (its token expired), knowing their names.
        let device = Self.device(knowing: files, base: plain, keyring: made.keyring, refusals: refusals)
        let all = try device.fetchChanges(in: EncryptionFixture.library, since: nil, resultsLimit: 100)
        #expect(Set(all.changed.map(\.recordID)) == Set(files.map(\.recordID)))
        #expect(all.deleted.isEmpty)

        _ = try sealed.modify(saving: [], deleting: [files[1].recordID], savePolicy: .allKeys)
        let next = try device.fetchChanges(in: EncryptionFixture.library, since: all.token, resultsLimit: 100)
        #expect(next.deleted.map(\.recordID) == [files[1].recordID])
        #expect(refusals.failures.isEmpty)
    }

    @Test("A device that fetched the sealed copies before the plain ones went (an app open meanwhile) is not told of their deletion")
    func plainCopiesGoingLaterDeleteNoFile() throws {
        let files = Self.libraryFiles()
        _ = try plain.modify(saving: files, deleting: [], savePolicy: .allKeys)
        // What turning encryption on does, with a fetch between its saves and its deletions.
        _ = try sealed.modify(saving: files, deleting: [], savePolicy: .allKeys)
        let device = Self.device(knowing: files, base: plain, keyring: made.keyring, refusals: refusals)
        let first = try device.fetchChanges(in: EncryptionFixture.library, since: nil, resultsLimit: 100)
        #expect(Set(first.changed.map(\.recordID)) == Set(files.map(\.recordID)))
        _ = try plain.modify(saving: [], deleting: files.map(\.recordID), savePolicy: .allKeys)

        let next = try device.fetchChanges(in: EncryptionFixture.library, since: first.token, resultsLimit: 100)
        #expect(next.changed.isEmpty && next.deleted.isEmpty)
    }

    @Test("Assets go up sealed and come down plain, and the record names them in clear for the remote")
    func assets() throws {
        let data = Data(String(repeating: "大檔案 big file ", count: 100_000).utf8)
        let reference = try sealed.uploadAsset(data)
        #expect(reference.size == Int64(data.count + RecordSealer.overhead))
        #expect(try plain.fetchAsset(reference) != data)
        #expect(try sealed.fetchAsset(reference) == data)
        let file = EncryptionFixture.libraryFile(path: "Items/big.json", data: .asset(reference))
        _ = try sealed.modify(saving: [file], deleting: [], savePolicy: .allKeys)
        let listed = try sealed.records(in: EncryptionFixture.library, ofType: "RawLibraryFile")
        #expect(listed.map(\.recordID) == [file.recordID])
        #expect(listed.first?.fields == file.fields)
        let underneath = try plain.records(in: EncryptionFixture.library, ofType: "SealedRawLibraryFile")
        #expect(underneath.first?.fields[RecordSealer.assetsField] == .list([.asset(reference)]))
    }

    @Test("The key envelope's zone passes through unsealed")
    func envelopePassesThrough() throws {
        #expect(try EnvelopeStore(database: sealed).publish(made.envelope).isPublished)
        let underneath = try plain.records(in: EnvelopeRecord.zone, ofType: EnvelopeRecord.recordType)
        #expect(underneath.map { Set($0.fields.keys) } == [[EnvelopeRecord.field]])
        #expect(try EnvelopeStore(database: plain).fetch()?.envelope == made.envelope)
    }

    @Test("A hostile remote's flipped, swapped and moved records are refused and reported; the good ones arrive")
    func hostile() throws {
        let names = ["good-1", "flipped", "swapped-1", "swapped-2", "moved", "good-2"]
        let ideas = names.map { EncryptionFixture.idea($0, title: "title of \($0)") }
        _ = try sealed.modify(saving: ideas, deleting: [], savePolicy: .allKeys)
        let hostile = TamperingDatabase(base: plain) { records in
            var byName = Dictionary(uniqueKeysWithValues: records.map { ($0.recordID.recordName, $0) })
            if case .bytes(var blob)? = byName["flipped"]?.fields[RecordSealer.sealedField] {
                blob[blob.startIndex + 30] ^= 0x04
                byName["flipped"]?.fields[RecordSealer.sealedField] = .bytes(blob)
            }
            let (one, two) = (byName["swapped-1"]!.fields, byName["swapped-2"]!.fields)
            byName["swapped-1"]?.fields = two
            byName["swapped-2"]?.fields = one
            byName["moved"]?.recordID.zoneID = RecordZoneID(zoneName: "Archive")
            return records.map { byName[$0.recordID.recordName]! }
        }
        let device = SealedDatabase(base: hostile, sealer: EncryptionFixture.sealer(made.keyring), report: refusals.sink)
        let changes = try device.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 100)
        #expect(Set(changes.changed.map(\.recordID.recordName)) == ["good-1", "good-2"])
        #expect(Set(changes.changed.map { $0["title"] }) == [.string("title of good-1"), .string("title of good-2")])
        let refused = refusals.failures
        #expect(refused.count == 4)
        #expect(refused.allSatisfy { $0.reason == .sealBroken })
        #expect(Set(refused.map(\.description)).contains("Refused record Archive/moved (SealedIdea): its seal does not verify (altered, swapped or moved)."))
        #expect(try device.records(in: EncryptionFixture.ideas, ofType: "Idea").count == 2)
    }

    @Test("A hostile remote's altered asset is refused, reported and fetched as missing")
    func hostileAsset() throws {
        let reference = try sealed.uploadAsset(Data("asset".utf8))
        let hostile = TamperingDatabase(base: plain)
        hostile.tamperAssets()
        let device = SealedDatabase(base: hostile, sealer: EncryptionFixture.sealer(made.keyring), report: refusals.sink)
        #expect(throws: CloudError.unknownItem) { try device.fetchAsset(reference) }
        #expect(refusals.failures == [OpenFailure(.asset(reference), .sealBroken)])
    }

    @Test("A plain record saved sealed takes the sealed type, which the remote keeps across saves otherwise")
    func plainRecordSealedTakesTheSealedType() throws {
        let saved = try plain.modify(saving: [EncryptionFixture.idea("a", title: "plain")], deleting: [], savePolicy: .allKeys)
        var edit = EncryptionFixture.idea("a", title: "sealed now")
        edit.changeTag = saved.saved.first?.changeTag
        let result = try sealed.modify(saving: [edit], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(result.saved.map(\.recordID) == [edit.recordID])
        #expect(result.saved.first?.recordType == "Idea")
        #expect(try plain.records(in: EncryptionFixture.ideas, ofType: "Idea").isEmpty)
        #expect(try plain.records(in: EncryptionFixture.ideas, ofType: "SealedIdea").map(\.recordID) == [edit.recordID])
        #expect(try sealed.records(in: EncryptionFixture.ideas, ofType: "Idea").first?["title"] == .string("sealed now"))
    }

    @Test("Turning encryption on and off rewrites every record under the sealed type and back, fields intact")
    func rewriteRoundTrip() throws {
        let ideas = [EncryptionFixture.idea("a", title: "Buy milk"), EncryptionFixture.idea("b", title: "買牛奶")]
        _ = try plain.modify(saving: ideas, deleting: [], savePolicy: .allKeys)
        let zones = [RecordRewriter.Zone(EncryptionFixture.ideas, recordType: "Idea")]
        let rewriter = RecordRewriter(raw: plain, sealed: sealed)
        #expect(try rewriter.sealEverything(zones) == 2)
        #expect(try plain.records(in: EncryptionFixture.ideas, ofType: "Idea").isEmpty)
        #expect(try plain.records(in: EncryptionFixture.ideas, ofType: "SealedIdea").count == 2)
        #expect(try rewriter.openEverything(zones) == 2)
        #expect(try plain.records(in: EncryptionFixture.ideas, ofType: "SealedIdea").isEmpty)
        #expect(Set(try plain.records(in: EncryptionFixture.ideas, ofType: "Idea").map(\.fields)) == Set(ideas.map(\.fields)))
        #expect(refusals.failures.isEmpty)
    }

    @Test("A plain record (from a device without encryption) is refused, not trusted")
    func plainRecordRefused() throws {
        _ = try plain.modify(saving: [EncryptionFixture.idea("old-device", title: "plain")], deleting: [], savePolicy: .allKeys)
        #expect(try sealed.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 100).changed.isEmpty)
        #expect(refusals.failures.map(\.reason) == [.notSealed])
    }

    /// `Favorite.json` and a file in each folder, one with a Chinese name, as LibrarySync names them.
    private static func libraryFiles() -> [RemoteRecord] {
        ["Favorite.json", "Items/靈感筆記.json", "FavoriteItems/fav.json"].map { path in
            EncryptionFixture.libraryFile(path: path, data: .bytes(Data("{\"path\":\"\(path)\"}".utf8)))
        }
    }

    /// A second device's sealed view, which knows `files`' plain names from its manifest.
    private static func device(
        knowing files: [RemoteRecord], base: any CloudDatabase, keyring: AccountKeyring, refusals: RefusalLog
    ) -> SealedDatabase {
        let device = SealedDatabase(base: base, sealer: EncryptionFixture.sealer(keyring, seed: 8), report: refusals.sink)
        device.rememberPlainNames(files.map(\.recordID.recordName), in: EncryptionFixture.library)
        return device
    }
}

extension EnvelopeStore.Publication {
    var isPublished: Bool {
        if case .published = self { true } else { false }
    }
}
