/// What the remote knows of an account's end-to-end encryption, in generic terms: whether its
/// database holds a key envelope (a record of type `envelopeType` in the zone `keyZone`), and
/// whether a save carries a sealed value (a `BYTES` field named `sealedField`). It knows no
/// key and opens nothing; it only keeps a database's records of one kind at a time:
///
/// - while the database holds an envelope, every save outside `keyZone` must be sealed;
/// - once it held one and holds it no more (its `keyZone` exists without an envelope:
///   encryption turned off), no save may be sealed;
/// - a database that never had a `keyZone` takes both, as CloudKit does.
///
/// A save the rule refuses fails, that record alone, with `CloudError.encryptionChanged`:
/// the device wrote under a look at the account's encryption that is out of date (another
/// device turned it on or off since). It looks again and sends again, sealed or plain, as
/// CloudKit's clients do with the server's record after a `serverRecordChanged`. Checked in
/// the store's transaction, so no save lands between an envelope's write and the rewrite of
/// the records that follows it. Deletions carry no value and are never refused.
public enum SealingRule {
    /// The zone of the account's key envelope.
    public static let keyZone = RecordZoneID(zoneName: "AccountKeys")
    /// The record type of the key envelope.
    public static let envelopeType = "KeyEnvelope"
    /// The field that holds a sealed record's value.
    public static let sealedField = "sealed"

    /// What a database's `keyZone` says of the saves it takes.
    public enum State: Sendable, Equatable {
        /// No `keyZone`: encryption was never turned on; every save is taken.
        case unknown
        /// An envelope: only sealed saves are taken outside `keyZone`.
        case sealed
        /// A `keyZone` without an envelope (turned off): no sealed save is taken.
        case plain

        /// The state of a database whose `keyZone` exists or not, and holds an envelope or not.
        public init(keyZoneExists: Bool, holdsEnvelope: Bool) {
            self = !keyZoneExists ? .unknown : holdsEnvelope ? .sealed : .plain
        }
    }

    /// Whether `record` carries a sealed value.
    public static func isSealed(_ record: RemoteRecord) -> Bool {
        if case .bytes? = record.fields[sealedField] { return true }
        return false
    }

    /// Whether a request saving `records` is one the rule may refuse: it saves outside `keyZone`.
    public static func applies(to records: some Sequence<RemoteRecord>) -> Bool {
        records.contains { $0.recordID.zoneID != keyZone }
    }

    /// Why a database in `state` does not take the save of `record` (as sent, before any
    /// merge with the stored copy), or nil if it does.
    public static func refusal(saving record: RemoteRecord, in state: State) -> CloudError? {
        guard record.recordID.zoneID != keyZone else { return nil }
        switch state {
        case .unknown: return nil
        case .sealed: return isSealed(record) ? nil : .encryptionChanged
        case .plain: return isSealed(record) ? .encryptionChanged : nil
        }
    }
}
