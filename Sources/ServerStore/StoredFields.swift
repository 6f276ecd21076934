import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// Record fields as a server stores them: JSON with sorted keys, readable with the sqlite3
/// shell or psql.
/// Written by `FieldValue.writeJSON` and read with `JSONValue`: `JSONEncoder` and
/// `JSONDecoder` each took longer than everything else the remote does for a record.
public enum StoredFields {
    /// The JSON text of `fields`.
    public static func encode(_ fields: [String: FieldValue]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, name) in fields.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.write(string: name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            fields[name]!.writeJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The fields in `json`, as `encode` wrote them. Read member by member (`JSONValue.Reader`):
    /// the server reads every record it hands out so, and a whole `JSONValue` tree of the
    /// text, a dictionary for each field, was about two fifths of its work for a page of
    /// zone changes.
    public static func decode(_ json: String) throws -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(16)
        try JSONValue.reading(json) { reader in
            try reader.forEachMember { name, value in
                guard fields.updateValue(try FieldValue(stored: &value), forKey: name) == nil else {
                    throw FieldValue.corrupted("the field \(name) is stored twice")
                }
            }
        }
        return fields
    }
}

/// A field value as a server stores it: a one-key object naming its type, as `FieldValue`'s
/// `Codable` form is, written and read without `JSONEncoder` and `JSONDecoder`.
extension FieldValue {
    /// The one key of a stored value's object.
    private enum StoredKey: String {
        case string, int64, double, bool, timestamp, bytes, asset, reference, location, list
    }

    /// The value of an encoded field as `JSONValue` reads it: the remote's way to read the
    /// fields of every record it serves, where `JSONDecoder` took several times as long.
    /// `Decodable` stays for values inside other coded types (a stored
    /// `serverRecordChanged` error carries a record).
    public init(stored json: JSONValue) throws {
        guard let object = json.object, object.count == 1, let (name, value) = object.first else {
            throw Self.notStored
        }
        self = try Self.stored(name, value)
    }

    /// The stored value `reader` is at, read without building its one-key object.
    init(stored reader: inout JSONValue.Reader) throws {
        var decoded: FieldValue?
        try reader.forEachMember { name, value in
            guard decoded == nil else { throw Self.notStored }
            decoded = try Self.stored(name, value.value())
        }
        guard let decoded else { throw Self.notStored }
        self = decoded
    }

    private static var notStored: DecodingError {
        corrupted(
            "a field value is an object with exactly one of the keys string, int64, double, bool, timestamp, bytes, asset, reference, location, list")
    }

    /// The value stored under the key `name` as `value`.
    private static func stored(_ name: String, _ value: JSONValue) throws -> FieldValue {
        guard let key = StoredKey(rawValue: name) else { throw notStored }
        let decoded: FieldValue? = switch key {
        case .string: value.string.map(FieldValue.string)
        case .int64: value.wholeNumber.map(FieldValue.int64)
        case .double: Self.double(value).map(FieldValue.double)
        case .bool: value.bool.map { FieldValue.int64($0 ? 1 : 0) }  // an earlier remote's flag
        case .timestamp: value.string.flatMap(Timestamp.init(iso8601:)).map(FieldValue.timestamp)
        case .bytes: value.string.flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case .asset:
            value.object.flatMap { object in
                guard let checksum = object["checksum"]?.string, let size = object["size"]?.wholeNumber else { return nil }
                return AssetReference(checksum: checksum, size: size).map(FieldValue.asset)
            }
        case .reference:
            value.object.flatMap { object in
                guard let name = object["recordName"]?.string, let action = object["action"]?.string.flatMap(RecordReference.Action.init)
                else { return nil }
                return FieldValue.reference(RecordReference(recordName: name, zoneName: object["zoneName"]?.string, action: action))
            }
        case .location: value.object.flatMap(Self.location).map(FieldValue.location)
        case .list: try value.array.map { try FieldValue.list($0.map(FieldValue.init(stored:))) }
        }
        guard let decoded else { throw corrupted("the \(name) value \(value) is not one") }
        return decoded
    }

    /// The value in its encoded form as compact JSON text, the way the remote stores it:
    /// written directly, because `JSONEncoder` cost more than the rest of saving a record.
    public var jsonText: String {
        var bytes: [UInt8] = []
        writeJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the value's compact JSON (see `jsonText`) to `bytes`.
    public func writeJSON(to bytes: inout [UInt8]) {
        func key(_ key: StoredKey) {
            bytes.append(contentsOf: #"{""#.utf8)
            bytes.append(contentsOf: key.rawValue.utf8)
            bytes.append(contentsOf: #"":"#.utf8)
        }
        switch self {
        case .string(let text):
            key(.string)
            JSONValue.write(string: text, to: &bytes)
        case .int64(let number):
            key(.int64)
            bytes.append(contentsOf: String(number).utf8)
        case .double(let number):
            key(.double)
            if number.isFinite {
                bytes.append(contentsOf: "\(number)".utf8)
            } else {
                let spelling = FieldValue.nonFiniteSpelling
                let text = number.isNaN ? spelling.nan : number < 0 ? spelling.negativeInfinity : spelling.positiveInfinity
                JSONValue.write(string: text, to: &bytes)
            }
        case .timestamp(let time):
            key(.timestamp)
            JSONValue.write(string: time.iso8601, to: &bytes)
        case .bytes(let data):
            key(.bytes)
            JSONValue.write(string: data.base64EncodedString(), to: &bytes)
        case .asset(let reference):
            key(.asset)
            bytes.append(contentsOf: #"{"checksum":"#.utf8)
            JSONValue.write(string: reference.checksum, to: &bytes)
            bytes.append(contentsOf: #","size":"#.utf8)
            bytes.append(contentsOf: String(reference.size).utf8)
            bytes.append(UInt8(ascii: "}"))
        case .reference(let reference):
            key(.reference)
            bytes.append(contentsOf: #"{"action":"#.utf8)
            JSONValue.write(string: reference.action.rawValue, to: &bytes)
            bytes.append(contentsOf: #","recordName":"#.utf8)
            JSONValue.write(string: reference.recordName, to: &bytes)
            if let zone = reference.zoneName {
                bytes.append(contentsOf: #","zoneName":"#.utf8)
                JSONValue.write(string: zone, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .location(let location):
            key(.location)
            var members: [(String, String)] = [("latitude", "\(location.latitude)"), ("longitude", "\(location.longitude)")]
            for (name, number) in [
                ("altitude", location.altitude), ("course", location.course), ("horizontalAccuracy", location.horizontalAccuracy),
                ("speed", location.speed), ("verticalAccuracy", location.verticalAccuracy),
            ] {
                if let number { members.append((name, "\(number)")) }
            }
            bytes.append(UInt8(ascii: "{"))
            for (index, (name, number)) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.write(string: name, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                bytes.append(contentsOf: number.utf8)
            }
            if let time = location.timestamp {
                bytes.append(contentsOf: #","timestamp":"#.utf8)
                JSONValue.write(string: time.iso8601, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .list(let values):
            key(.list)
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.writeJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A stored location: its numbers, and its timestamp in ISO 8601.
    private static func location(_ object: JSONValue.Object) -> Location? {
        guard let latitude = object["latitude"]?.number, let longitude = object["longitude"]?.number else { return nil }
        let time = object["timestamp"]?.string.flatMap(Timestamp.init(iso8601:))
        return Location(
            latitude: latitude, longitude: longitude, horizontalAccuracy: object["horizontalAccuracy"]?.number,
            verticalAccuracy: object["verticalAccuracy"]?.number, altitude: object["altitude"]?.number, speed: object["speed"]?.number,
            course: object["course"]?.number, timestamp: time)
    }

    private static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .string(FieldValue.nonFiniteSpelling.positiveInfinity): .infinity
        case .string(FieldValue.nonFiniteSpelling.negativeInfinity): -.infinity
        case .string(FieldValue.nonFiniteSpelling.nan): .nan
        default: value.number
        }
    }

    static func corrupted(_ description: String) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: description))
    }
}
