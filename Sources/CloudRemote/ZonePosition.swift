import Foundation

/// What a change token means to the simulated server: a point in one zone's history.
///
/// The zone is named by its row id, which SQLite never reuses, so a token of a deleted zone
/// never matches a new zone of the same name (nor a zone of another account).
struct ZonePosition: Equatable {
    /// The zone's row id.
    var zoneRowID: Int64
    /// The last change sequence the token covers.
    var sequence: Int64

    /// The position `sequence` of the zone `zoneRowID`.
    init(zoneRowID: Int64, sequence: Int64) {
        self.zoneRowID = zoneRowID
        self.sequence = sequence
    }

    /// The position a token stands for, or nil if the token was not made by this server.
    init?(_ token: ChangeToken) {
        let parts = String(decoding: token.data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "z1", let zoneRowID = Int64(parts[1]), let sequence = Int64(parts[2]) else {
            return nil
        }
        self.init(zoneRowID: zoneRowID, sequence: sequence)
    }

    /// The token for this position: `z1:<zone>:<sequence>` in UTF-8.
    var token: ChangeToken {
        ChangeToken(data: Data("z1:\(zoneRowID):\(sequence)".utf8))
    }
}
