/// Names one record: the zone it lives in and its record name, unique within that zone.
public struct RecordID: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The zone holding the record.
    public var zoneID: RecordZoneID
    /// The record's name, chosen by the client and unique within the zone.
    public var recordName: String

    /// A record id for `recordName` in `zoneID`.
    public init(recordName: String, zoneID: RecordZoneID) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    /// `zone/recordName`, for logs.
    public var description: String { "\(zoneID.zoneName)/\(recordName)" }
}
