import Foundation

/// The rule a new passphrase keeps (`account encryption enable`, `passphrase` and `reset`).
/// The passphrase is all that guards the account's key from whoever holds the key envelope
/// (the server's operator among them), who may try guesses offline as fast as scrypt allows:
/// a passphrase that a list of likely ones holds is found in minutes.
///
/// A passphrase keeps the rule when it has at least `minimumLength` characters, counted as a
/// person counts them (grapheme clusters: `我的靈感` is 4, `👩‍💻` is 1), and an estimated
/// `minimumBits` bits of guessing. The estimate is a small, deliberately plain cousin of
/// zxcvbn's, read from the left:
/// - one of `commonPasswords` (case aside), anywhere inside, counts as one guess among them
///   (`log2` of how many there are, about 7 bits), whatever its length;
/// - a stretch of 3 or more characters that already appeared earlier counts 1 bit a character;
/// - a character that repeats the one before it, or that continues a run of steps of one
///   (`abc`, `123`, `cba`: from the third character on), counts 1 bit;
/// - any other character counts `log2` of the pool of the kinds of characters the whole
///   passphrase uses: lower-case ASCII letters 26, upper-case 26, digits 10, other ASCII
///   (space, punctuation) 33, any other character (Chinese, accented letters, emoji) 100.
///
/// So 12 random lower-case letters (56 bits) pass and 12 random digits (40 bits) do not; four
/// words of one's own pass easily; `password1234`, `aaaaaaaaaaaa`, `abcdefghijkl` and
/// `hellohellohe` do not. Only the first `estimatedLength` characters are read: the estimate
/// is past the bar long before.
public enum PassphraseRule {
    /// The fewest characters a passphrase may have.
    public static let minimumLength = 12
    /// The fewest estimated bits of guessing a passphrase may have.
    public static let minimumBits = 50.0
    /// How many characters the estimate reads.
    static let estimatedLength = 128

    /// Why a passphrase does not keep the rule.
    public enum Weakness: Sendable, Equatable {
        /// It has `characters` characters, fewer than `minimumLength`.
        case tooShort(characters: Int)
        /// It is long enough, but its estimate is `bits` (rounded down), below `minimumBits`.
        case tooGuessable(bits: Int)
    }

    /// Why `passphrase` does not keep the rule, or nil when it does.
    public static func weakness(of passphrase: String) -> Weakness? {
        let count = passphrase.count
        guard count >= minimumLength else { return .tooShort(characters: count) }
        let bits = estimatedBits(passphrase)
        guard bits >= minimumBits else { return .tooGuessable(bits: Int(bits)) }
        return nil
    }

    /// The estimated bits of guessing `passphrase` takes, as the type's summary says.
    public static func estimatedBits(_ passphrase: String) -> Double {
        let characters = Array(passphrase.prefix(estimatedLength))
        let folded = characters.map { $0.lowercased() }
        let perCharacter = log2(Double(CharacterKind.pool(of: characters)))
        var bits = 0.0
        var index = 0
        while index < characters.count {
            if let length = commonPasswordLength(in: folded, at: index) {
                bits += log2(Double(commonPasswords.count))
                index += length
            } else if let length = earlierStretchLength(in: folded, at: index) {
                bits += Double(length)
                index += length
            } else {
                bits += isRepeatOrRun(characters, at: index) ? 1 : perCharacter
                index += 1
            }
        }
        return bits
    }

    /// The length of the longest common password at `index` of `folded`, if one is there.
    private static func commonPasswordLength(in folded: [String], at index: Int) -> Int? {
        commonPasswordCharacters
            .filter { word in index + word.count <= folded.count && folded[index..<index + word.count].elementsEqual(word) }
            .map(\.count).max()
    }

    /// The length of the longest stretch (3 or more) at `index` that appeared whole before it.
    private static func earlierStretchLength(in folded: [String], at index: Int) -> Int? {
        var longest: Int?
        for start in 0..<index {
            var length = 0
            while start + length < index, index + length < folded.count, folded[start + length] == folded[index + length] {
                length += 1
            }
            if length >= 3, length > (longest ?? 0) { longest = length }
        }
        return longest
    }

    /// Whether the character at `index` repeats the one before, or is the third or later of
    /// a run of steps of one in Unicode order (`abc`, `321`).
    private static func isRepeatOrRun(_ characters: [Character], at index: Int) -> Bool {
        guard index >= 1 else { return false }
        if characters[index].lowercased() == characters[index - 1].lowercased() { return true }
        guard index >= 2, let third = scalar(characters[index]), let second = scalar(characters[index - 1]),
              let first = scalar(characters[index - 2])
        else { return false }
        let step = Int(third) - Int(second)
        return abs(step) == 1 && Int(second) - Int(first) == step
    }

    /// The character's one Unicode scalar, if it is one.
    private static func scalar(_ character: Character) -> UInt32? {
        character.unicodeScalars.count == 1 ? character.unicodeScalars.first?.value : nil
    }

    /// Kinds of characters, each with the size of its pool.
    private enum CharacterKind: CaseIterable {
        case lower, upper, digit, otherASCII, other

        var poolSize: Int {
            switch self {
            case .lower, .upper: 26
            case .digit: 10
            case .otherASCII: 33
            case .other: 100
            }
        }

        init(_ character: Character) {
            guard character.isASCII, let ascii = character.asciiValue else { self = .other; return }
            switch ascii {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): self = .lower
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): self = .upper
            case UInt8(ascii: "0")...UInt8(ascii: "9"): self = .digit
            default: self = .otherASCII
            }
        }

        /// The pool of the kinds `characters` use (at least 1).
        static func pool(of characters: [Character]) -> Int {
            max(1, Set(characters.map(CharacterKind.init)).reduce(0) { $0 + $1.poolSize })
        }
    }

    /// Passwords people choose most, in lower case: the top of the published lists of leaked
    /// passwords (English and Chinese speakers'), keyboard walks, and the words a person
    /// reaches for here. Only 3 characters or more: shorter ones cost little anyway.
    public static let commonPasswords: [String] = [
        "password", "passw0rd", "p@ssw0rd", "p@ssword", "passphrase", "secret", "letmein", "welcome", "login", "admin",
        "administrator", "changeme", "default", "guest", "access", "master", "ideabox", "idea", "ideas", "test",
        "123456", "1234567", "12345678", "123456789", "1234567890", "0123456789", "987654321", "654321", "123123",
        "123321", "112233", "121212", "111111", "000000", "666666", "888888", "147258", "147258369", "159753",
        "159357", "5201314", "1314520", "7758521", "abc123", "a123456", "aa123456", "qq123456", "1q2w3e4r", "1qaz2wsx",
        "zaq12wsx", "qwerty", "qwertyuiop", "qwer", "asdf", "asdfgh", "asdfghjkl", "zxcvbn", "zxcvbnm", "qazwsx",
        "qweasd", "qweasdzxc", "iloveyou", "iloveu", "loveme", "lovely", "woaini", "aini1314", "wodemima", "mima",
        "monkey", "dragon", "sunshine", "princess", "football", "baseball", "soccer", "hockey", "shadow", "superman",
        "batman", "trustno1", "starwars", "whatever", "freedom", "hello", "computer", "internet", "michael", "jordan",
        "charlie", "jennifer", "hunter", "ashley", "buster", "killer", "george", "pepper", "cheese", "summer",
        "winter", "flower", "mustang", "maggie", "jessica", "ginger", "thomas", "daniel", "andrew", "matrix",
        "我愛你", "我爱你", "我的密碼", "我的密码",
    ]

    private static let commonPasswordCharacters: [[String]] = commonPasswords.map { $0.map { String($0) } }
}
