import CloudKitModel
import Foundation

/// A field value as bytes that order as `StoredQuery.compare` orders values, so that both
/// stores filter and sort by comparing them byte by byte (SQLite's BLOBs and PostgreSQL's
/// `bytea` both compare so) in an index: each saved record has one key per field, in the
/// table of field keys written with it.
///
/// A key is a kind byte, then:
/// - numbers (INT64, DOUBLE, TIMESTAMP, which compare with each other as doubles): the
///   double's bits in an order-preserving form, 8 bytes; -0 is +0, and every NaN one key
///   above +infinity (a NaN compares equal to every number: `QuerySQL` says so);
/// - strings: the UTF-8 of their canonical composition (NFC), which orders as Swift's
///   strings do, cut after `stringPrefixLength` bytes and then marked with 0xFF (a byte
///   UTF-8 never holds), so that a longer string keeps its place: two strings that agree
///   on their first `stringPrefixLength` bytes sort by record name;
/// - BYTES, ASSET and lists: nothing. They never order against each other (`compare` has
///   them equal or incomparable), so a sort by them is by record name.
public enum QueryKey {
    /// The kind byte of numbers, of strings and of values that do not order.
    public static let numberKind: UInt8 = 1, stringKind: UInt8 = 2, unorderedKind: UInt8 = 3
    /// The most bytes of a string a key holds (PostgreSQL indexes at most about 2.7 kB a row).
    public static let stringPrefixLength = 1024
    /// The key of every NaN: above every other number's.
    public static let notANumber = Data([numberKind] + [UInt8](repeating: 0xFF, count: 8))
    /// The key of values that do not order.
    public static let unordered = Data([unorderedKind])

    /// The key of each field of `fields`, by field name: the rows a store keeps beside a record.
    public static func keys(of fields: [String: FieldValue]) -> [(fieldName: String, key: Data)] {
        fields.map { ($0.key, key($0.value)) }
    }

    /// The key of `value`.
    public static func key(_ value: FieldValue) -> Data {
        switch value {
        case .string(let text): string(text).key
        case .int64, .double, .timestamp: number(StoredQuery.number(value)!)
        case .bytes, .asset, .reference, .location, .list: unordered
        }
    }

    /// The key of the number `number`.
    public static func number(_ number: Double) -> Data {
        guard !number.isNaN else { return notANumber }
        let bits = number == 0 ? 0 : number.bitPattern
        let ordered = bits & (1 << 63) == 0 ? bits | (1 << 63) : ~bits
        return Data([numberKind] + (0..<8).map { UInt8(truncatingIfNeeded: ordered >> (56 - 8 * $0)) })
    }

    /// The key of `text`, and whether it was cut.
    public static func string(_ text: String) -> (key: Data, isCut: Bool) {
        var bytes = [stringKind]
        let utf8 = text.utf8.allSatisfy { $0 < 0x80 } ? Array(text.utf8) : Array(text.precomposedStringWithCanonicalMapping.utf8)
        guard utf8.count > stringPrefixLength else { return (Data(bytes + utf8), false) }
        bytes += utf8.prefix(stringPrefixLength)
        bytes.append(0xFF)
        return (Data(bytes), true)
    }

    /// The smallest key above every key that begins with `prefix`, which holds no 0xFF
    /// (a key of this kind ending at `prefix` sorts just below it).
    static func successor(of prefix: Data) -> Data {
        var bytes = Array(prefix)
        bytes[bytes.count - 1] += 1
        return Data(bytes)
    }
}
