import CloudKitModel

/// A zone subscription of one account (Web Services' `subscriptionType: "zone"`): a device
/// that holds a long poll is told when the zone changes.
public struct ZoneSubscription: Hashable, Sendable {
    /// The subscription's id, chosen by the client (a new UUID if it names none).
    public var id: String
    /// The zone it watches.
    public var zone: RecordZoneID

    /// A subscription `id` to `zone`.
    public init(id: String, zone: RecordZoneID) {
        self.id = id
        self.zone = zone
    }
}
