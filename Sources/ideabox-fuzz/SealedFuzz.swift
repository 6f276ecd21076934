@testable import AccountEncryption
import CloudKitModel
import Foundation

/// The end-to-end encryption's readers: sealed payloads, key envelopes and keyrings must
/// read back what they write, and no bytes made here without the key may ever open as a
/// sealed record or asset under the fixed keyring (an opened forgery is a failure). The
/// first byte picks what the rest is read as.
enum SealedFuzz {
    /// The container every seal is bound to.
    static let container = "iCloud.com.example.fuzz"
    /// A zone whose record names are in clear.
    static let plainZone = RecordZoneID(zoneName: "Ideas")
    /// A zone whose record names are hidden.
    static let hiddenZone = RecordZoneID(zoneName: "Hidden")
    /// The fixed account's keys, made from a seeded generator with cheap scrypt.
    static let creation = try! KeyEnvelope.make(
        passphrase: "fuzz", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
    /// The sealer of the fixed keyring.
    static let sealer = RecordSealer(
        keyring: creation.keyring, containerID: container, hiddenNameZones: [hiddenZone], random: .seeded(2))

    /// Reads the rest of `bytes` as the kind of sealed data its first byte picks.
    static func run(_ bytes: [UInt8]) {
        let (mode, rest) = splitMode(of: bytes, count: 6)
        switch mode {
        case 0: payload(rest)
        case 1: envelope(rest)
        case 2: keyring(rest)
        case 3: forgedRecord(rest)
        case 4: forgedAsset(rest)
        default: sealAndOpen(rest)
        }
    }

    /// A payload read must write bytes that read, and write the same again.
    private static func payload(_ bytes: [UInt8]) {
        guard let read = try? SealedPayload.decode(bytes) else { return }
        let written = SealedPayload.encode(name: read.name, fields: read.fields)
        guard let again = try? SealedPayload.decode(written) else { fuzzFailure("a payload's own writing does not read: \(read)") }
        guard SealedPayload.encode(name: again.name, fields: again.fields) == written else {
            fuzzFailure("a payload reads otherwise once written: \(read) became \(again)")
        }
    }

    /// An envelope read must write the same bytes; following it from the fixed keyring must not crash.
    private static func envelope(_ bytes: [UInt8]) {
        guard let envelope = try? KeyEnvelope(encoded: Data(bytes)) else { return }
        guard envelope.encoded() == Data(bytes) else { fuzzFailure("an envelope does not write back the bytes it was read from") }
        _ = try? envelope.follow(from: creation.keyring)
    }

    /// A keyring read must read the same from its own serialization.
    private static func keyring(_ bytes: [UInt8]) {
        guard let keyring = try? AccountKeyring(serialized: Data(bytes)) else { return }
        guard (try? AccountKeyring(serialized: keyring.serialized())) == keyring else {
            fuzzFailure("a keyring does not survive its own serialization")
        }
    }

    /// Bytes as the sealed value of a record, in both zones: opening one is a forgery.
    private static func forgedRecord(_ bytes: [UInt8]) {
        for zone in [plainZone, hiddenZone] {
            let name = zone == hiddenZone ? sealer.hmacName("idea-1", in: zone) : "idea-1"
            let record = RemoteRecord(
                recordType: RecordSealer.sealedType(of: "Idea"), recordID: RecordID(recordName: name, zoneID: zone),
                fields: [RecordSealer.sealedField: .bytes(Data(bytes))])
            if let opened = try? sealer.open(record) { fuzzFailure("a record nobody sealed opens: \(opened)") }
            _ = sealer.keyID(of: record)
        }
    }

    /// Bytes as a sealed asset: opening them is a forgery.
    private static func forgedAsset(_ bytes: [UInt8]) {
        let data = Data(bytes)
        if let opened = try? sealer.openAsset(data, reference: AssetReference(of: data)) {
            fuzzFailure("an asset nobody sealed opens: \(opened.count) bytes")
        }
    }

    /// A payload read, sealed as a record and opened again must come back as it was.
    private static func sealAndOpen(_ bytes: [UInt8]) {
        guard let read = try? SealedPayload.decode(bytes) else { return }
        for zone in [plainZone, hiddenZone] {
            let plain = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: read.name, zoneID: zone), fields: read.fields)
            let opened: RemoteRecord
            do {
                opened = try sealer.open(sealer.seal(plain))
            } catch {
                fuzzFailure("a record sealed here does not open: \(error)")
            }
            guard opened.recordID == plain.recordID, opened.recordType == plain.recordType,
                  SealedPayload.encode(name: opened.recordID.recordName, fields: opened.fields) == SealedPayload.encode(name: read.name, fields: read.fields)
            else { fuzzFailure("a record sealed and opened differs: \(plain) became \(opened)") }
        }
    }
}
