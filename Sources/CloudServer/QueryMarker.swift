import CloudWebServices
import Foundation
import IdeaBoxFoundation
import ServerStore

/// A `records/query` continuation marker: where the page it ends with stopped (a
/// `QueryPosition`: the last record's sort values, name and zone), as base64 of a small JSON
/// object, `{"q":2,"s":[…],"n":name,"z":zone}`, each sort value `null` (the record has no
/// such field), `{"k":base64 key}`, `{"n":record name}` or `{"t":milliseconds}`.
///
/// A marker is the client's input: it is read strictly and bounded in length, and one that
/// does not fit the query's sorts is refused. The markers of the previous release counted
/// positions (`q1:<index>`); reading one would mean reading every record before it again,
/// so it is refused with a reason that says to start the query again.
enum QueryMarker {
    /// The longest marker read: eight sorts of the longest key, a record name and a zone name.
    static let maximumLength = 24_000

    /// The marker of `position`.
    static func marker(_ position: QueryPosition) -> String {
        let values: [JSONValue] = position.values.map { value in
            switch value {
            case .missing: .null
            case .key(let key): ["k": .string(key.base64EncodedString())]
            case .name(let name): ["n": .string(name)]
            case .time(let time): ["t": .integer(time)]
            }
        }
        let object: JSONValue = ["q": 2, "s": .array(values), "n": .string(position.recordName), "z": .string(position.zoneName)]
        return Data(object.bytes).base64EncodedString()
    }

    /// The position `json` marks in `query`; `BAD_REQUEST` unless it is a marker this
    /// server gave out for a query with the same sorts.
    static func position(_ json: JSONValue, in query: StoredQuery) throws -> QueryPosition {
        let refused = WebServicesError.badRequest("continuationMarker must be a marker this server gave out for this query.")
        guard let text = json.string, text.utf8.count <= maximumLength, let data = Data(base64Encoded: text) else { throw refused }
        if data.starts(with: Data("q1:".utf8)) {
            throw WebServicesError.badRequest(
                "continuationMarker comes from an earlier release of this server, whose markers counted records; ask for the query again without one.")
        }
        guard let object = (try? JSONValue(parsing: [UInt8](data)))?.object, Set(object.keys) == ["q", "s", "n", "z"],
              object["q"]?.wholeNumber == 2, let items = object["s"]?.array, items.count == query.sorts.count,
              let name = object["n"]?.string, (1...WebServicesFormat.maximumNameLength).contains(name.utf8.count),
              let zone = object["z"]?.string, (1...WebServicesFormat.maximumNameLength).contains(zone.utf8.count)
        else { throw refused }
        let values = try items.map { item -> QueryPosition.Value in
            if item == .null { return .missing }
            guard let value = item.object, value.count == 1, let (kind, content) = value.first else { throw refused }
            switch (kind, content) {
            case ("k", .string(let base64)):
                guard let key = Data(base64Encoded: base64), !key.isEmpty, key.count <= QueryKey.stringPrefixLength + 2 else { throw refused }
                return .key(key)
            case ("n", .string(let recordName)) where (1...WebServicesFormat.maximumNameLength).contains(recordName.utf8.count):
                return .name(recordName)
            case ("t", _):
                guard let time = content.wholeNumber else { throw refused }
                return .time(time)
            default:
                throw refused
            }
        }
        let position = QueryPosition(values: values, recordName: name, zoneName: zone)
        guard query.fits(position) else { throw refused }
        return position
    }
}
