import ArgumentParser
import IdeaBoxFoundation
import IdeaModel

/// The commands' help is written in both languages where each command is declared
/// (`.english(_:chinese:)`), and ArgumentParser writes the one of the person reading it:
/// the language of the process's locale, read once, before the first declaration is.
public enum HelpLanguage {
    /// The language help is written in.
    public static let current = Language.preferred(environment: EnvironmentVariables.process)
}

extension String {
    /// A command's abstract or discussion, in `HelpLanguage.current`.
    public static func english(_ english: String, chinese: String) -> String {
        switch HelpLanguage.current {
        case .english: english
        case .traditionalChinese: chinese
        }
    }
}

extension ArgumentHelp {
    /// An argument's help, in `HelpLanguage.current`.
    public static func english(_ english: String, chinese: String) -> ArgumentHelp {
        ArgumentHelp(String.english(english, chinese: chinese))
    }
}
