import CloudKitModel
import Foundation

/// What a change token means to a server of ours (the simulated one, or `serve`'s stores):
/// a point in one zone's history.
///
/// The zone is named by its row id, which neither SQLite nor PostgreSQL ever reuses, so a token of a deleted zone
/// never matches a new zone of the same name (nor a zone of another account).
public struct ZonePosition: Equatable, Sendable {
    /// The zone's row id.
    public var zoneRowID: Int64
    /// The last change sequence the token covers.
    public var sequence: Int64

    /// The position `sequence` of the zone `zoneRowID`.
    public init(zoneRowID: Int64, sequence: Int64) {
        self.zoneRowID = zoneRowID
        self.sequence = sequence
    }

    /// The position a token stands for, or nil if the token was not made by this server.
    public init?(_ token: ChangeToken) {
        let parts = String(decoding: token.data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "z1", let zoneRowID = Int64(parts[1]), let sequence = Int64(parts[2]) else {
            return nil
        }
        self.init(zoneRowID: zoneRowID, sequence: sequence)
    }

    /// The token for this position: `z1:<zone>:<sequence>` in UTF-8.
    public var token: ChangeToken {
        ChangeToken(data: Data("z1:\(zoneRowID):\(sequence)".utf8))
    }

    /// The sequence `token` stands for in the zone `zoneRowID`, whose history the server
    /// still holds over `history` (purged through, latest change); throws
    /// `changeTokenExpired` if the token belongs to another zone (or an earlier zone of this
    /// name) or to history since purged.
    public static func sequence(of token: ChangeToken, zoneRowID: Int64, history: ClosedRange<Int64>) throws -> Int64 {
        guard let position = ZonePosition(token), position.zoneRowID == zoneRowID, history.contains(position.sequence) else {
            throw CloudError.changeTokenExpired
        }
        return position.sequence
    }
}
