import CloudKitModel
import Foundation

/// The secrets that let a device into one account: 32 random bytes, shown once, of which
/// the server keeps only a SHA-256 hash.
public enum AccessToken {
    /// A new token: `ibx_` and 43 characters of base64url.
    public static func generate() -> String {
        "ibx_" + Base64URL.encode(randomBytes(32))
    }

    /// A new container API token (`ckAPIToken`): 32 random bytes as 64 lower-case hex digits.
    public static func generateAPIToken() -> String {
        randomBytes(32).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    /// The hash the server stores for `token`: its SHA-256 in lower-case hex.
    public static func hash(_ token: String) -> String {
        AssetReference.checksum(of: Data(token.utf8))
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
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
