import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// A database's sync token (`changes/database`, and where a long poll's device stands):
/// each zone's own latest change token, so it needs no history of its own. Spelled as
/// base64 of a JSON object from zone name to that zone's token in base64.
struct DatabaseToken: Equatable {
    /// Each zone's latest token, in base64, by zone name.
    var zones: [String: String]

    /// The token of zones whose latest tokens are `zones`.
    init(zones: [String: String] = [:]) {
        self.zones = zones
    }

    /// The token of a database whose zones stand at `tokens`.
    init(_ tokens: [RecordZoneID: ChangeToken]) {
        zones = Dictionary(uniqueKeysWithValues: tokens.map { ($0.key.zoneName, $0.value.data.base64EncodedString()) })
    }

    /// The token spelled `text`, or nil if this server never gave it out.
    init?(text: String) {
        guard text.utf8.count <= 1 << 20, let data = Data(base64Encoded: text),
              let object = try? JSONValue(parsing: [UInt8](data)).object, object.values.allSatisfy({ $0.string != nil })
        else { return nil }
        zones = object.compactMapValues(\.string)
    }

    /// The token as the wire spells it.
    var text: String {
        Data(JSONValue.object(zones.mapValues(JSONValue.string)).bytes).base64EncodedString()
    }

    /// The zones among `watched` whose token differs in `current`: written to, created or
    /// deleted since this token.
    func changedZones(_ watched: some Sequence<RecordZoneID>, current: DatabaseToken) -> [RecordZoneID] {
        watched.filter { zones[$0.zoneName] != current.zones[$0.zoneName] }
    }
}
