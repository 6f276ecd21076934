import CloudKitModel
import Foundation

/// How the key envelope lives on the remote: one record like any other, which the remote
/// stores without knowing what it is. Zone `AccountKeys` (no app zone is named so: ideas
/// live in `Ideas`, library files in `RawLibraryZone`), record `account-key`, type
/// `KeyEnvelope`, its bytes in the `BYTES` field `envelope`. `SealedDatabase` passes this
/// zone through unsealed. The remote knows the zone and the type (`SealingRule`): while the
/// envelope exists it takes only sealed records in the account's other zones.
public enum EnvelopeRecord {
    /// The zone of the envelope.
    public static let zone = SealingRule.keyZone
    /// The envelope's record name.
    public static let recordName = "account-key"
    /// The envelope's record type.
    public static let recordType = SealingRule.envelopeType
    /// The field holding the envelope's bytes.
    public static let field = "envelope"
    /// The envelope's record id.
    public static let recordID = RecordID(recordName: recordName, zoneID: zone)

    /// The record that stores `envelope`, over the server's `changeTag` (nil to create it).
    public static func record(for envelope: KeyEnvelope, changeTag: String? = nil) -> RemoteRecord {
        RemoteRecord(
            recordType: recordType, recordID: recordID, fields: [field: .bytes(envelope.encoded())],
            changeTag: changeTag, creationDate: nil, modificationDate: nil)
    }

    /// The envelope `record` stores; throws `unreadableEnvelope` if it is not the envelope's
    /// record or its bytes are refused (see `KeyEnvelope.init(encoded:)`).
    public static func envelope(from record: RemoteRecord) throws(AccountEncryptionError) -> KeyEnvelope {
        guard record.recordID == recordID, record.recordType == recordType, case .bytes(let data)? = record.fields[field] else {
            throw .unreadableEnvelope(reason: "the record \(record.recordID) is not a key envelope")
        }
        return try KeyEnvelope(encoded: data)
    }
}
