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
    /// An ordered list of values.
    case list([FieldValue])

    private enum CodingKeys: String, CodingKey {
        case string, int64, double, bool, timestamp, bytes, list
    }

    /// The spelling of non-finite doubles, for an encoder's `nonConformingFloatEncodingStrategy`.
    public static let nonFiniteSpelling = (positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "a field value is an object with exactly one of the keys string, int64, double, bool, timestamp, bytes, list"))
        }
        switch key {
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .int64: self = .int64(try container.decode(Int64.self, forKey: key))
        case .double: self = .double(try container.decode(Double.self, forKey: key))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .timestamp: self = .timestamp(try container.decode(Timestamp.self, forKey: key))
        case .bytes: self = .bytes(try container.decode(Data.self, forKey: key))
        case .list: self = .list(try container.decode([FieldValue].self, forKey: key))
        }
    }

    /// The value of an encoded field as `JSONSerialization` reads it: the remote's way to
    /// read the fields of every record it serves, where `JSONDecoder` took several times
    /// as long. `Decodable` stays for values inside other coded types (a stored
    /// `serverRecordChanged` error carries a record).
    public init(jsonObject: Any) throws {
        guard let object = jsonObject as? [String: Any], object.count == 1, let (name, value) = object.first,
              let key = CodingKeys(rawValue: name)
        else {
            throw Self.corrupted("a field value is an object with exactly one of the keys string, int64, double, bool, timestamp, bytes, list")
        }
        let decoded: FieldValue? = switch key {
        case .string: (value as? String).map(FieldValue.string)
        case .int64: (value as? NSNumber).flatMap { Self.isBoolean($0) ? nil : Int64(exactly: $0) }.map(FieldValue.int64)
        case .double: Self.double(value).map(FieldValue.double)
        case .bool: (value as? NSNumber).flatMap { Self.isBoolean($0) ? $0.boolValue : nil }.map(FieldValue.bool)
        case .timestamp: (value as? String).flatMap(Timestamp.init(iso8601:)).map(FieldValue.timestamp)
        case .bytes: (value as? String).flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case .list: try (value as? [Any]).map { try FieldValue.list($0.map(FieldValue.init(jsonObject:))) }
        }
        guard let decoded else { throw Self.corrupted("the \(name) value \(value) is not one") }
        self = decoded
    }

    private static func double(_ value: Any) -> Double? {
        switch value {
        case let text as String:
            switch text {
            case nonFiniteSpelling.positiveInfinity: .infinity
            case nonFiniteSpelling.negativeInfinity: -.infinity
            case nonFiniteSpelling.nan: .nan
            default: nil
            }
        case let number as NSNumber where !isBoolean(number):
            number.doubleValue
        default:
            nil
        }
    }

    /// Whether JSON had `true` or `false` here rather than a number.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(UInt8(ascii: "c"))
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
        case let .list(value): try container.encode(value, forKey: .list)
        }
    }
}
