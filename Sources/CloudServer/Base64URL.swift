import Foundation

/// Base64url without padding (RFC 4648 §5): tokens and URL tickets, safe in a path or query.
///
/// Written and read byte by byte through a table: every request with a ticket reads two of
/// these and every `tokens/create` writes two, and Foundation's base64 with its `+`/`/`
/// swapped by string replacing cost about a tenth of a notified device's server CPU.
enum Base64URL {
    /// The 64 characters, by value.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each byte as a character of `alphabet`, or `invalid`.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { values[Int(character)] = UInt8(value) }
        return values
    }()

    private static let invalid: UInt8 = 0xFF

    static func encode(_ data: some DataProtocol) -> String {
        let bytes = Array(data)
        let count = bytes.count / 3 * 4 + [0, 2, 3][bytes.count % 3]
        return String(unsafeUninitializedCapacity: count) { text in
            var out = 0
            func put(_ value: UInt32) {
                text[out] = alphabet[Int(value & 63)]
                out += 1
            }
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(group >> 18)
                put(group >> 12)
                put(group >> 6)
                put(group)
                index += 3
            }
            switch bytes.count - index {
            case 1:
                let group = UInt32(bytes[index]) << 16
                put(group >> 18)
                put(group >> 12)
            case 2:
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                put(group >> 18)
                put(group >> 12)
                put(group >> 6)
            default:
                break
            }
            return out
        }
    }

    /// The bytes of `text`, or nil if it is not base64url as `encode` writes it: only its 64
    /// characters, no padding, no length that leaves a lone character, and the last
    /// character's unused bits zero, so that no two spellings stand for one value.
    static func decode(_ text: some StringProtocol) -> Data? {
        var utf8 = Array(text.utf8)
        let remainder = utf8.count % 4
        guard remainder != 1 else { return nil }
        for index in utf8.indices {
            let value = values[Int(utf8[index])]
            guard value != invalid else { return nil }
            utf8[index] = value
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 4 * 3 + 2)
        var index = 0
        while index + 4 <= utf8.count {
            let group = UInt32(utf8[index]) << 18 | UInt32(utf8[index + 1]) << 12 | UInt32(utf8[index + 2]) << 6 | UInt32(utf8[index + 3])
            bytes.append(UInt8(truncatingIfNeeded: group >> 16))
            bytes.append(UInt8(truncatingIfNeeded: group >> 8))
            bytes.append(UInt8(truncatingIfNeeded: group))
            index += 4
        }
        switch remainder {
        case 2:
            guard utf8[index + 1] & 0b1111 == 0 else { return nil }
            bytes.append(utf8[index] << 2 | utf8[index + 1] >> 4)
        case 3:
            guard utf8[index + 2] & 0b11 == 0 else { return nil }
            bytes.append(utf8[index] << 2 | utf8[index + 1] >> 4)
            bytes.append(utf8[index + 1] << 4 | utf8[index + 2] >> 2)
        default:
            break
        }
        return Data(bytes)
    }
}
