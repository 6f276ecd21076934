import Foundation
import IdeaBoxCore

/// One value of a record's field: the types a CloudKit record can hold that the app needs.
///
/// Encodes as a one-key object naming its type (`{"int64": 3}`, `{"timestamp": "…Z"}`), so
/// a value decodes back to the same case: an `int64` never comes back as a `double`.
/// Non-finite doubles are written as the strings `+inf`, `-inf` and `nan`.
public enum FieldValue: Hashable, Sendable, Codable {
    /// Text.
    case string(String)
    /// A whole number, stored exactly.
    case int64(Int64)
    /// A floating-point number.
    case double(Double)
    /// True or false.
    case bool(Bool)
    /// An instant with millisecond precision.
    case timestamp(Timestamp)
    /// Raw bytes (base64 in JSON).
    case bytes(Data)
    /// A file stored beside the record, for data above the record size limit.
    case asset(AssetReference)
    /// An ordered list of values.
    case list([FieldValue])

    private enum CodingKeys: String, CodingKey {
        case string, int64, double, bool, timestamp, bytes, asset, list
    }

    /// The spelling of non-finite doubles, for an encoder's `nonConformingFloatEncodingStrategy`.
    public static let nonFiniteSpelling = (positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "a field value is an object with exactly one of the keys string, int64, double, bool, timestamp, bytes, asset, list"))
        }
        switch key {
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .int64: self = .int64(try container.decode(Int64.self, forKey: key))
        case .double: self = .double(try container.decode(Double.self, forKey: key))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .timestamp: self = .timestamp(try container.decode(Timestamp.self, forKey: key))
        case .bytes: self = .bytes(try container.decode(Data.self, forKey: key))
        case .asset: self = .asset(try container.decode(AssetReference.self, forKey: key))
        case .list: self = .list(try container.decode([FieldValue].self, forKey: key))
        }
    }

    /// The value of an encoded field as `JSONValue` reads it: the remote's way to read the
    /// fields of every record it serves, where `JSONDecoder` took several times as long.
    /// `Decodable` stays for values inside other coded types (a stored
    /// `serverRecordChanged` error carries a record).
    public init(stored json: JSONValue) throws {
        guard let object = json.object, object.count == 1, let (name, value) = object.first,
              let key = CodingKeys(rawValue: name)
        else {
            throw Self.corrupted("a field value is an object with exactly one of the keys string, int64, double, bool, timestamp, bytes, asset, list")
        }
        let decoded: FieldValue? = switch key {
        case .string: value.string.map(FieldValue.string)
        case .int64: value.wholeNumber.map(FieldValue.int64)
        case .double: Self.double(value).map(FieldValue.double)
        case .bool: value.bool.map(FieldValue.bool)
        case .timestamp: value.string.flatMap(Timestamp.init(iso8601:)).map(FieldValue.timestamp)
        case .bytes: value.string.flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case .asset:
            value.object.flatMap { object in
                guard let checksum = object["checksum"]?.string, let size = object["size"]?.wholeNumber else { return nil }
                return AssetReference(checksum: checksum, size: size).map(FieldValue.asset)
            }
        case .list: try value.array.map { try FieldValue.list($0.map(FieldValue.init(stored:))) }
        }
        guard let decoded else { throw Self.corrupted("the \(name) value \(value) is not one") }
        self = decoded
    }

    /// The value in its encoded form as compact JSON text, the way the remote stores it:
    /// written directly, because `JSONEncoder` cost more than the rest of saving a record.
    public var jsonText: String {
        var bytes: [UInt8] = []
        writeJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the value's compact JSON (see `jsonText`) to `bytes`.
    func writeJSON(to bytes: inout [UInt8]) {
        func key(_ key: CodingKeys) {
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
                let spelling = Self.nonFiniteSpelling
                let text = number.isNaN ? spelling.nan : number < 0 ? spelling.negativeInfinity : spelling.positiveInfinity
                JSONValue.write(string: text, to: &bytes)
            }
        case .bool(let flag):
            key(.bool)
            bytes.append(contentsOf: (flag ? "true" : "false").utf8)
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

    private static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .string(nonFiniteSpelling.positiveInfinity): .infinity
        case .string(nonFiniteSpelling.negativeInfinity): -.infinity
        case .string(nonFiniteSpelling.nan): .nan
        default: value.number
        }
    }

    private static func corrupted(_ description: String) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: description))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .string(value): try container.encode(value, forKey: .string)
        case let .int64(value): try container.encode(value, forKey: .int64)
        case let .double(value): try container.encode(value, forKey: .double)
        case let .bool(value): try container.encode(value, forKey: .bool)
        case let .timestamp(value): try container.encode(value, forKey: .timestamp)
        case let .bytes(value): try container.encode(value, forKey: .bytes)
        case let .asset(value): try container.encode(value, forKey: .asset)
        case let .list(value): try container.encode(value, forKey: .list)
        }
    }
}
