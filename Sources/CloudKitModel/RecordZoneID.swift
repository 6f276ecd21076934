/// The name of a zone in one account's private database; records live in zones, and
/// changes are fetched zone by zone.
public struct RecordZoneID: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The zone's name, unique within its database.
    public var zoneName: String

    /// The zone every account has, which a request without a zone means (CloudKit's
    /// `_defaultZone`). Changes are fetched for custom zones only.
    public static let defaultZone = RecordZoneID(zoneName: "_defaultZone")

    /// A zone id for `zoneName`.
    public init(zoneName: String) {
        self.zoneName = zoneName
    }

    public var description: String { zoneName }
}
