import Foundation
import GRDB

/// SQLite's record format (https://www.sqlite.org/fileformat2.html#record_format): a header of
/// serial types, then the values they describe, read from hostile bytes.
enum DatabaseRecord {
    /// The values of the record `payload`, or nil if it is not a well-formed record: a header
    /// or a value that runs past its end, or a serial type that no record uses. Text is read in
    /// the database's `textEncoding` (1 UTF-8, 2 UTF-16le, 3 UTF-16be).
    static func values(of payload: [UInt8], textEncoding: Int) -> [DatabaseValue]? {
        guard let headerSize = FileBytes.varint(payload, at: 0), headerSize.value >= 1, headerSize.value <= Int64(payload.count)
        else { return nil }
        var types: [Int64] = []
        var offset = headerSize.length
        while offset < Int(headerSize.value) {
            guard let type = FileBytes.varint(payload, at: offset) else { return nil }
            types.append(type.value)
            offset += type.length
        }
        guard offset == Int(headerSize.value) else { return nil }
        var values: [DatabaseValue] = []
        values.reserveCapacity(types.count)
        for type in types {
            guard let length = length(of: type), offset + length <= payload.count else { return nil }
            let bytes = payload[offset..<offset + length]
            offset += length
            values.append(value(of: type, bytes, textEncoding: textEncoding))
        }
        return values
    }

    /// How many bytes a value of serial type `type` takes; nil for the types no record uses
    /// (10 and 11, and negative ones).
    private static func length(of type: Int64) -> Int? {
        switch type {
        case 0, 8, 9: 0
        case 1...4: Int(type)
        case 5: 6
        case 6, 7: 8
        case 12...: Int((type - 12) / 2)
        default: nil
        }
    }

    /// The value of serial type `type` whose bytes are `bytes` (as long as `length(of:)` says).
    private static func value(of type: Int64, _ bytes: ArraySlice<UInt8>, textEncoding: Int) -> DatabaseValue {
        switch type {
        case 0: return .null
        case 8: return Int64(0).databaseValue
        case 9: return Int64(1).databaseValue
        case 1...6:
            // Big-endian two's complement: the first byte's sign reaches every higher bit.
            let first = Int64(Int8(bitPattern: bytes.first ?? 0))
            return bytes.dropFirst().reduce(first) { $0 << 8 | Int64($1) }.databaseValue
        case 7:
            return Double(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }).databaseValue
        case _ where type % 2 == 0:
            return Data(bytes).databaseValue
        default:
            return text(bytes, textEncoding: textEncoding).databaseValue
        }
    }

    /// Text in the database's encoding; bytes that are not valid in it read as U+FFFD, as a
    /// damaged page can make them.
    private static func text(_ bytes: ArraySlice<UInt8>, textEncoding: Int) -> String {
        guard textEncoding == 2 || textEncoding == 3 else { return String(decoding: bytes, as: UTF8.self) }
        let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { index in
            let (low, high) = textEncoding == 2 ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            return UInt16(high) << 8 | UInt16(low)
        }
        return String(decoding: units, as: UTF16.self)
    }
}
