import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// What a sealed blob holds once opened: the record's plain name and its fields, in a compact
/// binary form (faster than JSON, which would cost a noticeable share of a sync's time):
///
/// ```
/// plain record name (u16 length, UTF-8)   field count (u16)
/// each field, by name: name (u16 length, UTF-8)  value
/// value: tag (1) then  1 string (u32 length, UTF-8) | 2 int64 (8) | 3 double (8, IEEE bits)
///        | 4 timestamp (int64 ms) | 5 bytes (u32 length) | 6 asset (checksum: u16 length,
///        ASCII hex; size: int64) | 7 list (u32 count, then values; nested at most 8 deep)
/// ```
///
/// Decoded strictly, like the envelope: a payload is only ever made by a key holder, but a
/// device that reads one trusts no length it did not check.
enum SealedPayload {
    static let maximumNameBytes = 1024
    static let maximumDepth = 8

    static func encode(name: String, fields: [String: FieldValue]) -> [UInt8] {
        var writer = ByteWriter(capacity: 256)
        writer.put(short: Array(name.utf8))
        writer.put(bigEndian: UInt16(fields.count))
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            writer.put(short: Array(key.utf8))
            put(value, into: &writer)
        }
        return writer.bytes
    }

    private static func put(_ value: FieldValue, into writer: inout ByteWriter) {
        switch value {
        case .string(let text):
            writer.put(1)
            writer.put(long: Array(text.utf8))
        case .int64(let number):
            writer.put(2)
            writer.put(bigEndian: number)
        case .double(let number):
            writer.put(3)
            writer.put(bigEndian: number.bitPattern)
        case .timestamp(let time):
            writer.put(4)
            writer.put(bigEndian: time.milliseconds)
        case .bytes(let data):
            writer.put(5)
            writer.put(long: data)
        case .asset(let reference):
            writer.put(6)
            writer.put(short: Array(reference.checksum.utf8))
            writer.put(bigEndian: reference.size)
        case .list(let values):
            writer.put(7)
            writer.put(bigEndian: UInt32(values.count))
            for item in values { put(item, into: &writer) }
        case .reference(let reference):
            writer.put(8)
            writer.put(short: Array(reference.recordName.utf8))
            writer.put(short: Array((reference.zoneName ?? "").utf8))
            writer.put(short: Array(reference.action.rawValue.utf8))
        case .location(let location):
            // The latitude and longitude, then a mask of the measurements present and each of them.
            writer.put(9)
            writer.put(bigEndian: location.latitude.bitPattern)
            writer.put(bigEndian: location.longitude.bitPattern)
            let optional = [location.horizontalAccuracy, location.verticalAccuracy, location.altitude, location.speed, location.course]
            var mask: UInt8 = location.timestamp == nil ? 0 : 1 << 5
            for (bit, number) in optional.enumerated() where number != nil { mask |= 1 << UInt8(bit) }
            writer.put(mask)
            for number in optional.compactMap({ $0 }) { writer.put(bigEndian: number.bitPattern) }
            if let time = location.timestamp { writer.put(bigEndian: time.milliseconds) }
        }
    }

    static func decode(_ bytes: [UInt8]) throws(ByteReader.Malformed) -> (name: String, fields: [String: FieldValue]) {
        var reader = ByteReader(bytes)
        let name = try reader.text("the record name", maximum: maximumNameBytes)
        let count = Int(try reader.integer(UInt16.self, "the field count"))
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let key = try reader.text("a field name", maximum: 255)
            guard fields[key] == nil else { throw ByteReader.Malformed(reason: "field \(key) appears twice") }
            fields[key] = try value(&reader, depth: 0)
        }
        try reader.finish("the record")
        return (name, fields)
    }

    private static func value(_ reader: inout ByteReader, depth: Int) throws(ByteReader.Malformed) -> FieldValue {
        switch try reader.byte("a value's type") {
        case 1:
            let raw = try reader.long("a string", maximum: reader.remaining)
            guard let text = String(validating: raw, as: UTF8.self) else { throw ByteReader.Malformed(reason: "a string is not UTF-8") }
            return .string(text)
        case 2:
            return .int64(try reader.integer(Int64.self, "an int64"))
        case 3:
            return .double(Double(bitPattern: try reader.integer(UInt64.self, "a double")))
        case 4:
            return .timestamp(Timestamp(milliseconds: try reader.integer(Int64.self, "a timestamp")))
        case 5:
            return .bytes(Data(try reader.long("bytes", maximum: reader.remaining)))
        case 6:
            let checksum = String(decoding: try reader.short("an asset checksum", maximum: 64), as: UTF8.self)
            let size = try reader.integer(Int64.self, "an asset size")
            guard let reference = AssetReference(checksum: checksum, size: size) else {
                throw ByteReader.Malformed(reason: "an asset reference is invalid")
            }
            return .asset(reference)
        case 7:
            guard depth < maximumDepth else { throw ByteReader.Malformed(reason: "lists nest more than \(maximumDepth) deep") }
            let count = Int(try reader.integer(UInt32.self, "a list's count"))
            // Every value takes at least one byte: a larger count can only be a lie.
            guard count <= reader.remaining else { throw ByteReader.Malformed(reason: "a list claims more items than bytes") }
            var items: [FieldValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try value(&reader, depth: depth + 1)) }
            return .list(items)
        case 8:
            let name = try reader.text("a reference's record name", maximum: maximumNameBytes)
            let zone = try reader.text("a reference's zone", maximum: 255)
            guard let action = RecordReference.Action(rawValue: try reader.text("a reference's action", maximum: 16)) else {
                throw ByteReader.Malformed(reason: "a reference's action is unknown")
            }
            return .reference(RecordReference(recordName: name, zoneName: zone.isEmpty ? nil : zone, action: action))
        case 9:
            let latitude = Double(bitPattern: try reader.integer(UInt64.self, "a latitude"))
            let longitude = Double(bitPattern: try reader.integer(UInt64.self, "a longitude"))
            let mask = try reader.byte("a location's measurements")
            var optional: [Double?] = []
            for bit in 0..<5 {
                optional.append(mask & (1 << UInt8(bit)) == 0 ? nil : Double(bitPattern: try reader.integer(UInt64.self, "a measurement")))
            }
            let time = mask & (1 << 5) == 0 ? nil : Timestamp(milliseconds: try reader.integer(Int64.self, "a location's time"))
            guard let location = Location(
                latitude: latitude, longitude: longitude, horizontalAccuracy: optional[0], verticalAccuracy: optional[1],
                altitude: optional[2], speed: optional[3], course: optional[4], timestamp: time)
            else { throw ByteReader.Malformed(reason: "a location is not on Earth") }
            return .location(location)
        case let tag:
            throw ByteReader.Malformed(reason: "a value has unknown type \(tag)")
        }
    }
}
