import IdeaBoxFoundation

/// The language IdeaBox speaks to its user: English, or Traditional Chinese.
public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case traditionalChinese = "zh-Hant"

    /// The language the POSIX locale variables ask for: `LC_ALL`, then `LC_MESSAGES`,
    /// then `LANG`. `zh_TW`, `zh_HK`, `zh_MO` and anything naming `Hant` mean Traditional
    /// Chinese, whether or not that locale is installed; everything else means English.
    public static func preferred(environment: [String: String]) -> Language {
        preferred(environment: EnvironmentVariables(environment))
    }

    /// The language the locale variables of `environment` ask for, as `preferred(environment:)`
    /// reads them from a dictionary.
    public static func preferred(environment: EnvironmentVariables) -> Language {
        var locale = ""
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                locale = value
                break
            }
        }
        let name = locale.lowercased()
        let traditional = ["zh_tw", "zh-tw", "zh_hk", "zh-hk", "zh_mo", "zh-mo", "zh_hant", "zh-hant"]
        return traditional.contains { name.hasPrefix($0) } ? .traditionalChinese : .english
    }
}

/// An error whose message is meant for the person at the keyboard, in their language.
public protocol UserFacingError: Error {
    /// One line saying what was wrong and, where it helps, what is allowed.
    func message(in language: Language) -> String
}
