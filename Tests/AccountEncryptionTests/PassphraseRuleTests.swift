import AccountEncryption
import Foundation
import Testing

/// `PassphraseRule`: at least 12 characters as a person counts them, and an estimate of 50
/// bits of guessing that repeats, runs and common passwords do not reach.
@Suite struct PassphraseRuleTests {
    @Test(arguments: [
        "correct horse 電池 staple",
        "correct horse battery",
        "我的靈感都在這個盒子裡面",
        "mqzvxkwtrhbj",
        "Tea at noon, 3 sugars",
        "walk passphrase 散步",
        "新的密碼 fresh words",
        "words of device A",
        "fresh words at dawn",
        "new words at dusk",
    ])
    func theseKeepTheRule(passphrase: String) {
        #expect(PassphraseRule.weakness(of: passphrase) == nil, "\(PassphraseRule.estimatedBits(passphrase)) bits")
    }

    @Test func lengthCountsCharactersAsAPersonSeesThemNotBytesOrScalars() {
        #expect(PassphraseRule.weakness(of: "") == .tooShort(characters: 0))
        #expect(PassphraseRule.weakness(of: "x") == .tooShort(characters: 1))
        #expect(PassphraseRule.weakness(of: "mqzvxkwtrhb") == .tooShort(characters: 11))
        #expect(PassphraseRule.weakness(of: "mqzvxkwtrhbj") == nil)
        // 11 Chinese characters are 33 bytes and 11 characters: too short; 12 are enough.
        #expect(PassphraseRule.weakness(of: "我的靈感都在這個盒子裡") == .tooShort(characters: 11))
        #expect(PassphraseRule.weakness(of: "我的靈感都在這個盒子裡面") == nil)
        // A family emoji is seven scalars and one character.
        #expect(PassphraseRule.weakness(of: "👨‍👩‍👧 靈感 ok") == .tooShort(characters: 7))
    }

    @Test(arguments: [
        "aaaaaaaaaaaa",
        "abcdefghijkl",
        "lkjihgfedcba",
        "123456789012",
        "password1234",
        "Password1234",
        "qwertyuiop12",
        "iloveyou2024",
        "hellohellohe",
        "abcabcabcabc",
        "summer2024!!",
        "好好好好好好好好好好好好",
        "384729105637",
    ])
    func theseAreTooEasyToGuess(passphrase: String) {
        guard case let .tooGuessable(bits) = PassphraseRule.weakness(of: passphrase) else {
            Issue.record("\(passphrase) was not refused as guessable: \(PassphraseRule.estimatedBits(passphrase)) bits")
            return
        }
        #expect(Double(bits) < PassphraseRule.minimumBits)
    }

    @Test func eachPatternCostsWhatTheRuleSays() {
        let lower = log2(26.0)
        let common = log2(Double(PassphraseRule.commonPasswords.count))
        // Random letters: each its pool.
        #expect(abs(PassphraseRule.estimatedBits("mqzv") - 4 * lower) < 0.001)
        // A repeat of the one before: 1 bit.
        #expect(abs(PassphraseRule.estimatedBits("mqq") - (2 * lower + 1)) < 0.001)
        // A run: its first two characters in full, then 1 bit each.
        #expect(abs(PassphraseRule.estimatedBits("abcde") - (2 * lower + 3)) < 0.001)
        // A stretch seen before: 1 bit a character.
        #expect(abs(PassphraseRule.estimatedBits("mqzvmqzv") - (4 * lower + 4)) < 0.001)
        // A common password, whatever its case and length: one guess among the list.
        #expect(abs(PassphraseRule.estimatedBits("PassWord") - common) < 0.001)
        #expect(abs(PassphraseRule.estimatedBits("我愛你") - common) < 0.001)
        // Digits and capitals widen the pool of every character.
        #expect(abs(PassphraseRule.estimatedBits("mQ7") - 3 * log2(62.0)) < 0.001)
    }

    @Test func theCommonPasswordsAreLowerCaseAndLongEnoughToMatter() {
        for word in PassphraseRule.commonPasswords {
            #expect(word == word.lowercased() && word.count >= 3, "\(word)")
        }
        #expect(Set(PassphraseRule.commonPasswords).count == PassphraseRule.commonPasswords.count, "no duplicates")
    }

    @Test func aVeryLongPassphraseIsReadOnlyAsFarAsTheEstimateNeeds() {
        let long = String(repeating: "mqzvxkwtrhbj", count: 10_000)
        #expect(PassphraseRule.weakness(of: long) == nil)
    }
}
