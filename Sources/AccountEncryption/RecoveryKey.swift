import Crypto
import Foundation

/// The key a person writes down when encryption is turned on, to unlock the account if the
/// passphrase is forgotten: 130 random bits as 26 characters of Crockford's base32 (digits
/// and capitals without I, L, O and U), then 2 check characters, shown in 7 groups of 4
/// (`7KQ2-M9XD-…`).
///
/// The check characters are two Reed–Solomon syndromes over GF(32): any one or two wrong
/// characters, and any two neighbours swapped, make the text "not a recovery key"
/// (`AccountEncryptionError.notARecoveryKey`) before a key is tried, so a typo never reads as
/// "wrong key". Reading forgives case, spaces and dashes, and reads O as 0 and I or L as 1.
public struct RecoveryKey: Sendable, Equatable, CustomStringConvertible {
    /// How many random characters a key has (5 bits each: 130 bits).
    public static let randomCount = 26
    /// How many check characters follow them.
    public static let checkCount = 2
    /// How many characters a group shows.
    public static let groupSize = 4

    /// The 26 random symbols, each 0 to 31.
    let symbols: [UInt8]

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    private init(symbols: [UInt8]) {
        self.symbols = symbols
    }

    /// A new random key.
    public static func random(using random: RandomBytes = .system) -> RecoveryKey {
        RecoveryKey(symbols: random.bytes(randomCount).map { $0 & 0x1F })
    }

    /// The key `text` spells; throws `notARecoveryKey` if it has the wrong length, a
    /// character outside the alphabet, or check characters that don't match.
    public init(text: String) throws(AccountEncryptionError) {
        var values: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "\t"): continue
            default:
                guard let value = Self.value(of: byte), values.count < Self.randomCount + Self.checkCount else {
                    throw .notARecoveryKey
                }
                values.append(value)
            }
        }
        guard values.count == Self.randomCount + Self.checkCount else { throw .notARecoveryKey }
        let symbols = Array(values.prefix(Self.randomCount))
        guard Array(values.suffix(Self.checkCount)) == Self.checks(of: symbols) else { throw .notARecoveryKey }
        self.symbols = symbols
    }

    /// The key as it is shown and written down: 7 groups of 4 characters joined by dashes.
    public var text: String {
        let characters = (symbols + Self.checks(of: symbols)).map { Self.alphabet[Int($0)] }
        return stride(from: 0, to: characters.count, by: Self.groupSize).map { start in
            String(decoding: characters[start..<min(start + Self.groupSize, characters.count)], as: UTF8.self)
        }.joined(separator: "-")
    }

    /// Never the key itself: a recovery key reaches no log.
    public var description: String { "recovery key" }

    /// The key that wraps the envelope's key-encryption key: HKDF-SHA256 of the symbols.
    func wrappingKey(salt: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: symbols), salt: salt,
            info: Data("IdeaBox recovery key v1".utf8), outputByteCount: 32)
    }

    private static func value(of byte: UInt8) -> UInt8? {
        let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 0x20 : byte
        switch upper {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return alphabet.firstIndex(of: upper).map(UInt8.init)
        }
    }

    /// The two check symbols: Σ vᵢ·αⁱ⁺¹ and Σ vᵢ·α²⁽ⁱ⁺¹⁾ in GF(32) (α a root of x⁵ + x² + 1).
    /// Two errors at positions i ≠ j (mod 31) would need a non-trivial solution of a
    /// Vandermonde system, which has none: every one- or two-character error shows.
    static func checks(of symbols: [UInt8]) -> [UInt8] {
        var first: UInt8 = 0, second: UInt8 = 0
        for (index, symbol) in symbols.enumerated() {
            let weight = GaloisField32.power(index + 1)
            first ^= GaloisField32.multiply(symbol, weight)
            second ^= GaloisField32.multiply(symbol, GaloisField32.multiply(weight, weight))
        }
        return [first, second]
    }
}

/// Arithmetic in GF(2⁵) modulo the primitive polynomial x⁵ + x² + 1.
enum GaloisField32 {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a, b = b, product: UInt8 = 0
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            b >>= 1
            a <<= 1
            if a & 0x20 != 0 { a ^= 0x25 }
        }
        return product
    }

    /// αⁿ, α being x (the element 2).
    static func power(_ exponent: Int) -> UInt8 {
        (0..<(exponent % 31)).reduce(UInt8(1)) { value, _ in multiply(value, 2) }
    }
}
