import AccountEncryption
import Testing

@Suite("RecoveryKey")
struct RecoveryKeyTests {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    @Test("A recovery key is 7 groups of 4 characters of Crockford's base32, and reads back")
    func format() throws {
        let key = RecoveryKey.random(using: .seeded(1))
        let groups = key.text.split(separator: "-")
        #expect(groups.count == 7)
        #expect(groups.allSatisfy { $0.count == 4 && $0.allSatisfy(Self.alphabet.contains) })
        #expect(try RecoveryKey(text: key.text) == key)
        #expect(key.description == "recovery key")
    }

    @Test("Reading forgives case, spaces, missing dashes, and O, I, L for 0, 1, 1")
    func forgiving() throws {
        let key = RecoveryKey.random(using: .seeded(2))
        let text = key.text
        #expect(try RecoveryKey(text: text.lowercased()) == key)
        #expect(try RecoveryKey(text: text.replacingOccurrences(of: "-", with: " ")) == key)
        #expect(try RecoveryKey(text: text.replacingOccurrences(of: "-", with: "")) == key)
        let misread = String(text.map { $0 == "0" ? "O" : $0 == "1" ? "l" : $0 })
        #expect(try RecoveryKey(text: misread) == key)
    }

    @Test("Every one-character typo is caught as not a recovery key", arguments: [UInt64(1), 2, 3])
    func substitutions(seed: UInt64) {
        let characters = Array(RecoveryKey.random(using: .seeded(seed)).text.replacingOccurrences(of: "-", with: ""))
        for index in characters.indices {
            for replacement in Self.alphabet where replacement != characters[index] {
                var typo = characters
                typo[index] = replacement
                #expect(throws: AccountEncryptionError.notARecoveryKey) { try RecoveryKey(text: String(typo)) }
            }
        }
    }

    @Test("Every two neighbours swapped, and every two-character typo on a sample, is caught")
    func transpositionsAndPairs() {
        let characters = Array(RecoveryKey.random(using: .seeded(4)).text.replacingOccurrences(of: "-", with: ""))
        for index in characters.indices.dropLast() where characters[index] != characters[index + 1] {
            var swapped = characters
            swapped.swapAt(index, index + 1)
            #expect(throws: AccountEncryptionError.notARecoveryKey) { try RecoveryKey(text: String(swapped)) }
        }
        for first in characters.indices {
            for second in characters.indices where second > first {
                var typo = characters
                typo[first] = Self.alphabet[(Self.alphabet.firstIndex(of: typo[first])! + 1 + second) % 32]
                typo[second] = Self.alphabet[(Self.alphabet.firstIndex(of: typo[second])! + 7) % 32]
                #expect(throws: AccountEncryptionError.notARecoveryKey) { try RecoveryKey(text: String(typo)) }
            }
        }
    }

    @Test("A missing, an extra or a foreign character is caught", arguments: ["drop", "extra", "foreign", "empty"])
    func lengthAndAlphabet(change: String) {
        let text = RecoveryKey.random(using: .seeded(5)).text
        let changed = switch change {
        case "drop": String(text.dropLast())
        case "extra": text + "7"
        case "foreign": "U" + text.dropFirst()
        default: ""
        }
        #expect(throws: AccountEncryptionError.notARecoveryKey) { try RecoveryKey(text: changed) }
    }
}
