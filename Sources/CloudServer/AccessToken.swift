import Crypto
import Foundation

/// The secrets that let a device into one account: 32 random bytes, shown once, of which
/// the server keeps only a SHA-256 hash.
public enum AccessToken {
    /// A new token: `ibx_` and 43 characters of base64url.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let base64url = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "ibx_" + base64url
    }

    /// A new container API token (`ckAPIToken`): 32 random bytes as 64 lower-case hex digits.
    public static func generateAPIToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// The hash the server stores for `token`, in lower-case hex.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether an account name is one the server accepts: 1 to 64 letters, digits, '.',
    /// '_' or '-', starting with a letter or digit.
    public static func isValidAccountName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64,
              first.isASCII, first.properties.isAlphabetic || ("0"..."9").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
        }
    }
}
