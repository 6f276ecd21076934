import AccountEncryption
import CloudKitModel
import Foundation
import Testing

@Suite("RecordSealer")
struct RecordSealerTests {
    private let made: KeyEnvelope.Creation
    private let sealer: RecordSealer

    init() throws {
        made = try EncryptionFixture.creation()
        sealer = EncryptionFixture.sealer(made.keyring)
    }

    @Test("A record seals into one field and opens back whole", arguments: [
        ("Buy milk", "before Friday"), ("買牛奶", "星期五之前，記得帶購物袋"), ("", ""), ("emoji 👩‍👩‍👧 and 繁體", String(repeating: "長", count: 4096)),
    ])
    func roundTrip(title: String, description: String) throws {
        var record = EncryptionFixture.idea("2f1c0000-0000-4000-8000-000000000001", title: title, description: description)
        record.changeTag = "tag-3"
        record.fields["nested"] = .list([.double(.pi), .bytes(Data([0, 1, 2])), .list([.string("深")])])
        record.fields["parent"] = .reference(RecordReference(recordName: "父 parent", zoneName: "Ideas", action: .deleteSelf))
        record.fields["places"] = .list([
            .location(Location(latitude: 25.033964, longitude: 121.564468, altitude: 508, speed: 1.5)!),
            .location(Location(latitude: -90, longitude: 180)!), .reference(RecordReference(recordName: "r")),
        ])
        let sealed = sealer.seal(record)
        #expect(sealed.recordType == "SealedIdea")
        #expect(sealed.recordID == record.recordID)
        #expect(sealed.changeTag == "tag-3")
        #expect(Array(sealed.fields.keys) == [RecordSealer.sealedField])
        #expect(try sealer.open(sealed) == record)
        guard case .bytes(let blob)? = sealed.fields[RecordSealer.sealedField] else { Issue.record("no sealed bytes"); return }
        #expect(blob.first == RecordSealer.formatVersion)
        #expect(Array(blob.dropFirst().prefix(8)) == made.keyring.current.id.bytes)
        if !title.isEmpty { #expect(!blob.contains(Data(title.utf8))) }
    }

    @Test("A tombstone is sealed like any idea: nothing says it is one")
    func tombstone() throws {
        let live = sealer.seal(EncryptionFixture.idea("a", title: "x"))
        let tombstone = sealer.seal(EncryptionFixture.idea("a", title: "", deleted: true))
        #expect(live.fields.keys == tombstone.fields.keys)
        #expect(try sealer.open(tombstone)["isDeleted"] == .int64(1))
    }

    @Test("Flipping any byte of the sealed value is refused")
    func flippedBytes() throws {
        let sealed = sealer.seal(EncryptionFixture.idea("a", title: "秘密 secret"))
        guard case .bytes(let blob)? = sealed.fields[RecordSealer.sealedField] else { Issue.record("no sealed bytes"); return }
        for index in blob.indices {
            var flipped = blob
            flipped[index] ^= 0x80
            var tampered = sealed
            tampered.fields[RecordSealer.sealedField] = .bytes(flipped)
            #expect(throws: OpenFailure.self) { try sealer.open(tampered) }
        }
        var cut = sealed
        cut.fields[RecordSealer.sealedField] = .bytes(blob.prefix(20))
        #expect(throws: OpenFailure(.record(sealed.recordID, recordType: "SealedIdea"), .sealBroken)) { try sealer.open(cut) }
    }

    @Test("The sealed values of two records swapped are refused")
    func swapped() throws {
        let first = sealer.seal(EncryptionFixture.idea("a", title: "first"))
        let second = sealer.seal(EncryptionFixture.idea("b", title: "second"))
        var swapped = first
        swapped.fields = second.fields
        #expect(throws: OpenFailure(.record(first.recordID, recordType: "SealedIdea"), .sealBroken)) { try sealer.open(swapped) }
    }

    @Test("A record moved to another zone, retyped or read in another container is refused")
    func movedRetypedOrElsewhere() throws {
        let sealed = sealer.seal(EncryptionFixture.idea("a", title: "stay"))
        var moved = sealed
        moved.recordID.zoneID = RecordZoneID(zoneName: "Elsewhere")
        #expect(throws: OpenFailure(.record(moved.recordID, recordType: "SealedIdea"), .sealBroken)) { try sealer.open(moved) }
        var retyped = sealed
        retyped.recordType = "SealedNote"
        #expect(throws: OpenFailure(.record(sealed.recordID, recordType: "SealedNote"), .sealBroken)) { try sealer.open(retyped) }
        var unprefixed = sealed
        unprefixed.recordType = "Idea"
        #expect(throws: OpenFailure(.record(sealed.recordID, recordType: "Idea"), .notSealed)) { try sealer.open(unprefixed) }
        let elsewhere = RecordSealer(keyring: made.keyring, containerID: "iCloud.other", hiddenNameZones: [EncryptionFixture.library])
        #expect(throws: OpenFailure(.record(sealed.recordID, recordType: "SealedIdea"), .sealBroken)) { try elsewhere.open(sealed) }
    }

    @Test("A record sealed with a key this keyring lacks, or not sealed at all, is refused and named")
    func unknownKeyAndPlain() throws {
        let stranger = EncryptionFixture.sealer(try EncryptionFixture.creation(seed: 77).keyring)
        let foreign = stranger.seal(EncryptionFixture.idea("a", title: "theirs"))
        let failure = OpenFailure(.record(foreign.recordID, recordType: "SealedIdea"), .unknownKey(stranger.keyring.current.id))
        #expect(throws: failure) { try sealer.open(foreign) }
        #expect(failure.description == "Refused record Ideas/a (SealedIdea): it is sealed with key \(stranger.keyring.current.id), which this device does not hold.")
        let plain = EncryptionFixture.idea("b", title: "plain")
        #expect(throws: OpenFailure(.record(plain.recordID, recordType: "Idea"), .notSealed)) { try sealer.open(plain) }
    }

    @Test("After a rotation, records sealed with the earlier key still open, and new ones use the new key")
    func rotation() throws {
        let old = sealer.seal(EncryptionFixture.idea("a", title: "before the rotation"))
        let (_, keyring) = try made.envelope.rotated(unlockingWith: .passphrase(EncryptionFixture.passphrase), random: .seeded(21))
        let rotated = EncryptionFixture.sealer(keyring)
        #expect(try rotated.open(old)["title"] == .string("before the rotation"))
        let new = rotated.seal(EncryptionFixture.idea("b", title: "after"))
        guard case .bytes(let blob)? = new.fields[RecordSealer.sealedField] else { Issue.record("no sealed bytes"); return }
        #expect(Array(blob.dropFirst().prefix(8)) == keyring.current.id.bytes)
        #expect(throws: OpenFailure.self) { try sealer.open(new) }
    }

    @Test("A library record's name is an HMAC, not sha256(path); it opens back under its plain name and is refused if renamed")
    func hiddenNames() throws {
        let record = EncryptionFixture.libraryFile(path: "Items/秘密計畫.json", data: .bytes(Data("{}".utf8)))
        let sealed = sealer.seal(record)
        #expect(sealed.recordID.recordName != record.recordID.recordName)
        #expect(sealed.recordID.recordName.count == 64)
        #expect(sealed.recordID == sealer.remoteRecordID(for: record.recordID))
        #expect(try sealer.open(sealed) == record)
        let otherAccount = EncryptionFixture.sealer(try EncryptionFixture.creation(seed: 5).keyring)
        #expect(otherAccount.remoteRecordID(for: record.recordID) != sealed.recordID)
        let (_, rotated) = try made.envelope.rotated(unlockingWith: .recoveryKey(made.recoveryKey), random: .seeded(2))
        #expect(EncryptionFixture.sealer(rotated).remoteRecordID(for: record.recordID) == sealed.recordID)
    }

    @Test("An asset seals and opens; its sealed bytes hide the content; a flipped byte is refused")
    func assets() throws {
        let data = Data(String(repeating: "機密 asset bytes ", count: 1000).utf8)
        let blob = sealer.sealAsset(data)
        #expect(blob.count == data.count + RecordSealer.overhead)
        #expect(!blob.contains(Data("機密".utf8)))
        let reference = AssetReference(checksum: String(repeating: "a", count: 64), size: Int64(blob.count))!
        #expect(try sealer.openAsset(blob, reference: reference) == data)
        var flipped = blob
        flipped[flipped.startIndex + 40] ^= 1
        #expect(throws: OpenFailure(.asset(reference), .sealBroken)) { try sealer.openAsset(flipped, reference: reference) }
    }

    @Test("A record naming an asset lists it in clear, so the remote keeps it")
    func assetReferencesStayVisible() throws {
        let reference = AssetReference(checksum: String(repeating: "b", count: 64), size: 2_000_000)!
        let sealed = sealer.seal(EncryptionFixture.libraryFile(path: "Items/big.json", data: .asset(reference)))
        #expect(sealed.fields[RecordSealer.assetsField] == .list([.asset(reference)]))
        #expect(sealed.fields.values.flatMap(\.assetReferences) == [reference])
    }
}
