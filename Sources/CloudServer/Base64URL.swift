import Foundation

/// Base64url without padding (RFC 4648 §5): tokens and URL tickets, safe in a path or query.
enum Base64URL {
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, or nil if it is not base64url as `encode` writes it. The last
    /// character's unused bits must be zero, so that no two spellings stand for one value
    /// (Foundation's decoder ignores them).
    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), encode(data) == text else { return nil }
        return data
    }
}
