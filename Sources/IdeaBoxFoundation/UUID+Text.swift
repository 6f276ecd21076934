import Foundation

extension UUID {
    /// The id as lower-case `8-4-4-4-12` text, as IdeaBox stores and prints ids.
    ///
    /// Written by hand because Foundation on Linux formats through `snprintf`, which shows
    /// up when a list prints tens of thousands of ids.
    public var lowercasedString: String {
        let hexDigits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var index = 0
                for (position, byte) in bytes.enumerated() {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = hexDigits[Int(byte >> 4)]
                    buffer[index + 1] = hexDigits[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }

    /// Parses `8-4-4-4-12` hexadecimal text in either case; nil for anything else.
    ///
    /// Written by hand because Foundation on Linux parses through `sscanf`.
    public init?(hexText text: some StringProtocol) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        let parsed = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            var byteIndex = 0
            var high: UInt8?
            for (position, character) in utf8.enumerated() {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard character == UInt8(ascii: "-") else { return false }
                    continue
                }
                guard let nibble = Self.nibble(character) else { return false }
                if let upper = high {
                    output[byteIndex] = upper << 4 | nibble
                    byteIndex += 1
                    high = nil
                } else {
                    high = nibble
                }
            }
            return byteIndex == 16
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
