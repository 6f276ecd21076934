import CloudKitModel
import Foundation

/// A point in one zone's history, as our servers (the embedded remote, `serve`'s stores)
/// keep it: the zone's row id, which neither SQLite nor PostgreSQL ever reuses, so a point of
/// a deleted zone never matches a new zone of the same name (nor a zone of another account),
/// and the last change sequence it covers. Devices never see it as such: `PositionKeys`
/// makes the tokens and change tags they hold.
public struct ZonePosition: Equatable, Sendable {
    /// The zone's row id.
    public var zoneRowID: Int64
    /// The last change sequence the position covers.
    public var sequence: Int64

    /// The position `sequence` of the zone `zoneRowID`.
    public init(zoneRowID: Int64, sequence: Int64) {
        self.zoneRowID = zoneRowID
        self.sequence = sequence
    }

    /// The position a token of the release before stands for (`z1:<zone>:<sequence>` in
    /// UTF-8, which showed the row id), or nil if `token` is not one. Devices that synced
    /// with that release hold such tokens; they are read for one release more.
    public init?(releaseBeforeToken token: ChangeToken) {
        guard token.data.count <= 64 else { return nil }
        let parts = String(decoding: token.data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "z1", let zoneRowID = Int64(parts[1]), let sequence = Int64(parts[2]) else {
            return nil
        }
        self.init(zoneRowID: zoneRowID, sequence: sequence)
    }
}
