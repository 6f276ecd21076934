import Foundation
import IdeaBoxFoundation

/// One value of a record's field: the types a CloudKit record can hold that the app needs.
///
/// Encodes as a one-key object naming its type (`{"int64": 3}`, `{"timestamp": "…Z"}`), so
/// a value decodes back to the same case: an `int64` never comes back as a `double`.
/// Non-finite doubles are written as the strings `+inf`, `-inf` and `nan`.
///
/// CloudKit has no Boolean type: a flag is an `int64` 0 or 1. A `{"bool": …}` that an earlier
/// remote stored decodes as one. On the wire a list is one of CloudKit's `*_LIST` types, all
/// of its items of one scalar type (`WebServicesFormat`).
public enum FieldValue: Hashable, Sendable, Codable {
    /// Text.
    case string(String)
    /// A whole number, stored exactly.
    case int64(Int64)
    /// A floating-point number.
    case double(Double)
    /// An instant with millisecond precision.
    case timestamp(Timestamp)
    /// Raw bytes (base64 in JSON).
    case bytes(Data)
    /// A file stored beside the record, for data above the record size limit.
    case asset(AssetReference)
    /// A reference to another record of the account.
    case reference(RecordReference)
    /// A place on Earth.
    case location(Location)
    /// An ordered list of values.
    case list([FieldValue])

    private enum CodingKeys: String, CodingKey {
        // `bool` is read only: what earlier remotes stored for a flag.
        case string, int64, double, bool, timestamp, bytes, asset, reference, location, list
    }

    /// The spelling of non-finite doubles, for an encoder's `nonConformingFloatEncodingStrategy`.
    public static let nonFiniteSpelling = (positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "a field value is an object with exactly one of the keys string, int64, double, bool, timestamp, bytes, asset, reference, location, list"))
        }
        switch key {
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .int64: self = .int64(try container.decode(Int64.self, forKey: key))
        case .double: self = .double(try container.decode(Double.self, forKey: key))
        case .bool: self = .int64(try container.decode(Bool.self, forKey: key) ? 1 : 0)
        case .timestamp: self = .timestamp(try container.decode(Timestamp.self, forKey: key))
        case .bytes: self = .bytes(try container.decode(Data.self, forKey: key))
        case .asset: self = .asset(try container.decode(AssetReference.self, forKey: key))
        case .reference: self = .reference(try container.decode(RecordReference.self, forKey: key))
        case .location: self = .location(try container.decode(Location.self, forKey: key))
        case .list: self = .list(try container.decode([FieldValue].self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .string(value): try container.encode(value, forKey: .string)
        case let .int64(value): try container.encode(value, forKey: .int64)
        case let .double(value): try container.encode(value, forKey: .double)
        case let .timestamp(value): try container.encode(value, forKey: .timestamp)
        case let .bytes(value): try container.encode(value, forKey: .bytes)
        case let .asset(value): try container.encode(value, forKey: .asset)
        case let .reference(value): try container.encode(value, forKey: .reference)
        case let .location(value): try container.encode(value, forKey: .location)
        case let .list(value): try container.encode(value, forKey: .list)
        }
    }
}
