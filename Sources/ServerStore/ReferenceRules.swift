import CloudKitModel

/// What the server decides of references (`RecordReference`), whichever store holds them:
/// which of a record's references delete it with their target (`DELETE_SELF`), and how many
/// records one request's cascade deletes. The stores keep the index of those references
/// and write what the cascade deletes.
///
/// A reference reaches records of its own zone only, as Apple's `CKRecord.Reference` has it
/// ("You may only create references between records within the same zone of the same
/// database"), so a cascade never leaves the zone of the record whose deletion started it.
public enum ReferenceRules {
    /// The most records one modify deletes by cascade, so that a request that deletes the
    /// head of a long chain holds the store's write lock for a bounded time. The rest of the
    /// cascade is kept and done, first, by the next modify of the zone.
    public static let cascadeBatch = 1_000

    /// The names of the records of its own zone whose deletion deletes `record`: the targets
    /// of its `DELETE_SELF` references, in lists too.
    public static func cascadingTargets(of record: RemoteRecord) -> Set<String> {
        let zone = record.recordID.zoneID.zoneName
        return Set(record.fields.values.flatMap(\.recordReferences).lazy
            .filter { $0.action == .deleteSelf && ($0.zoneName ?? zone) == zone }
            .map(\.recordName))
    }

    /// The cascading targets (`cascadingTargets(of:)`) a save of `record` over `server` (the
    /// record it replaces, nil for a new one) stops naming (`dropped`) and starts naming
    /// (`added`): both empty for a save that keeps its references, so it costs nothing.
    public static func targetChange(of record: RemoteRecord, over server: RemoteRecord?) -> (dropped: Set<String>, added: Set<String>) {
        let named = cascadingTargets(of: record)
        let before = server.map(cascadingTargets(of:)) ?? []
        return (before.subtracting(named), named.subtracting(before))
    }

    /// Whether `reference`, held by a record of `zone`, names a record of another zone,
    /// which CloudKit does not allow.
    public static func leavesZone(_ reference: RecordReference, from zone: RecordZoneID) -> Bool {
        reference.zoneName.map { $0 != zone.zoneName } ?? false
    }
}
