import IdeaModel
import Testing

/// Choosing the user's language from the POSIX locale variables.
@Suite struct LanguageTests {
    @Test("Traditional Chinese locales", arguments: [
        "zh_TW.UTF-8", "zh_TW", "zh_TW.Big5", "zh_HK.UTF-8", "zh_HK", "zh_MO.UTF-8",
        "zh_Hant", "zh_Hant.UTF-8", "zh-Hant", "zh-Hant-TW", "zh-TW", "ZH_TW.utf8",
    ])
    func traditionalChinese(locale: String) {
        #expect(Language.preferred(environment: ["LANG": locale]) == .traditionalChinese)
        #expect(Language.preferred(environment: ["LC_ALL": locale]) == .traditionalChinese)
        #expect(Language.preferred(environment: ["LC_MESSAGES": locale]) == .traditionalChinese)
    }

    @Test("Everything else is English", arguments: [
        "zh_CN.UTF-8", "zh_CN", "zh_SG", "zh-Hans", "zh", "C", "C.UTF-8", "POSIX", "en_US.UTF-8", "ja_JP.UTF-8", "",
    ])
    func english(locale: String) {
        #expect(Language.preferred(environment: ["LANG": locale]) == .english)
    }

    @Test func unsetIsEnglish() {
        #expect(Language.preferred(environment: [:]) == .english)
        #expect(Language.preferred(environment: ["HOME": "/home/zh_TW", "LANGUAGE": "zh_TW"]) == .english)
    }

    @Test func lcAllWinsOverEverything() {
        #expect(Language.preferred(environment: ["LC_ALL": "C", "LC_MESSAGES": "zh_TW.UTF-8", "LANG": "zh_TW.UTF-8"]) == .english)
        #expect(Language.preferred(environment: ["LC_ALL": "zh_TW.UTF-8", "LC_MESSAGES": "C", "LANG": "en_US.UTF-8"]) == .traditionalChinese)
    }

    @Test func lcMessagesWinsOverLang() {
        #expect(Language.preferred(environment: ["LC_MESSAGES": "zh_HK.UTF-8", "LANG": "en_US.UTF-8"]) == .traditionalChinese)
        #expect(Language.preferred(environment: ["LC_MESSAGES": "en_US.UTF-8", "LANG": "zh_TW.UTF-8"]) == .english)
    }

    @Test func emptyVariablesCountAsUnset() {
        #expect(Language.preferred(environment: ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_TW.UTF-8"]) == .traditionalChinese)
        #expect(Language.preferred(environment: ["LC_ALL": "", "LC_MESSAGES": "zh_TW", "LANG": "C"]) == .traditionalChinese)
    }

    @Test func otherCategoriesAreIgnored() {
        #expect(Language.preferred(environment: ["LC_CTYPE": "zh_TW.UTF-8", "LC_TIME": "zh_TW.UTF-8", "LANG": "C"]) == .english)
    }
}
