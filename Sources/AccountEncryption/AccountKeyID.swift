/// The name of one account key: 8 random bytes, shown as 16 lower-case hex digits. It
/// travels in clear inside every sealed blob, so a device knows which key opens it; it says
/// nothing about the key itself.
public struct AccountKeyID: Hashable, Sendable, CustomStringConvertible {
    /// The number of bytes.
    public static let byteCount = 8

    /// The id's bytes.
    public let bytes: [UInt8]

    /// The id of `bytes`; nil unless there are exactly `byteCount` of them.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// The id spelled by 16 hex digits (either case); nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == Self.byteCount * 2 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// A new random id.
    public static func random(using random: RandomBytes) -> AccountKeyID {
        AccountKeyID(bytes: random.bytes(byteCount))!
    }

    /// 16 lower-case hex digits.
    public var hex: String { Self.hex(bytes) }

    public var description: String { hex }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
