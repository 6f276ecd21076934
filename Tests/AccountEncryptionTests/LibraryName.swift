import Crypto
import Foundation

/// LibrarySync's record name of a path (`sha256(path)` in hex), without depending on it.
enum LibraryName {
    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}
