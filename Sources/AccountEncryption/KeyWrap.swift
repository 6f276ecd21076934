import Crypto
import Foundation

/// Seals one 32-byte secret under another key: ChaCha20-Poly1305 with a random nonce, the
/// box `nonce ‖ ciphertext ‖ tag` (60 bytes), its associated data naming the slot and the ids
/// it belongs to, so that no box opens in another's place.
enum KeyWrap {
    /// The size of a box around a 32-byte secret.
    static let boxSize = 12 + 32 + 16

    static func seal(_ secret: [UInt8], with key: SymmetricKey, context: [UInt8], random: RandomBytes) -> [UInt8] {
        // Neither can fail: a 12-byte nonce and a 256-bit key are what ChaChaPoly takes.
        let nonce = try! ChaChaPoly.Nonce(data: random.bytes(12))
        return Array(try! ChaChaPoly.seal(secret, using: key, nonce: nonce, authenticating: context).combined)
    }

    /// The secret in `box`, or nil if `key` or `context` is not the one it was sealed with
    /// (or the box was altered).
    static func open(_ box: [UInt8], with key: SymmetricKey, context: [UInt8]) -> [UInt8]? {
        guard let sealed = try? ChaChaPoly.SealedBox(combined: box),
              let secret = try? ChaChaPoly.open(sealed, using: key, authenticating: context),
              secret.count == 32
        else { return nil }
        return Array(secret)
    }

    /// Associated data: the envelope format's label, the slot's name, then each part's bytes
    /// after its length, so that no two contexts share a spelling.
    static func context(_ slot: String, _ parts: [UInt8]...) -> [UInt8] {
        var writer = ByteWriter()
        writer.put(short: Array("IdeaBox key envelope v1".utf8))
        writer.put(short: Array(slot.utf8))
        for part in parts { writer.put(short: part) }
        return writer.bytes
    }
}
