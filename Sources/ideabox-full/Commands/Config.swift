import ArgumentParser
import Foundation
import IdeaBoxCommandLine
import IdeaBoxConfig
import IdeaModel

extension IdeaBoxCommand {
    /// `ideabox config path|show|check`: the config file's place, its settings, its problems.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config", abstract: .english("The config file: where it is, the settings in effect, and its problems.", chinese: "設定檔：它的位置、目前生效的設定，以及其中的問題。"),
            subcommands: [Path.self, Show.self, Check.self])
    }
}

extension IdeaBoxCommand.Config {
    /// `ideabox config path`: where the file is looked for, whether or not it exists.
    struct Path: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "path", abstract: .english("Print where the config file is read from (it may not exist yet).", chinese: "顯示設定檔的讀取位置（檔案可能還不存在）。"))

        func run(in context: CommandContext) throws {
            guard let path = ConfigFile.path(environment: context.environment) else { throw ConfigCommandError.noHome }
            print(path)
        }
    }

    /// `ideabox config show`: every setting in effect, as a file that would set them.
    struct Show: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: .english("Print the settings in effect (the defaults where the file is missing or has a problem).", chinese: "顯示目前生效的設定（檔案不存在或有問題時為預設值）。"))

        func run(in context: CommandContext) throws {
            let file = ConfigFile.load(environment: context.environment)
            print(ConfigText.source(file, context.language))
            print(file.config.fileText)
        }
    }

    /// `ideabox config check`: every problem of the file, with its line; non-zero if any.
    struct Check: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: .english("List every problem of the config file with its line; exit non-zero if there is one.", chinese: "列出設定檔的每個問題與其行號；有問題時以非零結束。"))

        func run(in context: CommandContext) throws {
            let file = ConfigFile.load(environment: context.environment)
            guard file.problems.isEmpty else {
                for problem in file.problems {
                    FileHandle.standardError.write(Data("\(file.path ?? ""): \(problem.message(in: context.language))\n".utf8))
                }
                throw ExitCode(1)
            }
            print(ConfigText.fine(file, context.language))
        }
    }
}

/// The config command's own words.
enum ConfigText {
    /// Where the shown settings come from.
    static func source(_ file: ConfigFile, _ language: Language) -> String {
        let path = file.path ?? "?"
        switch (file.exists, file.problems.isEmpty, language) {
        case (false, _, .english): return "# \(path) does not exist: the defaults"
        case (false, _, _): return "# \(path) 不存在：使用預設值"
        case (true, true, .english): return "# from \(path)"
        case (true, true, _): return "# 來自 \(path)"
        case (true, false, .english): return "# \(path) has problems (ideabox config check): the defaults"
        case (true, false, _): return "# \(path) 有問題（ideabox config check）：使用預設值"
        }
    }

    /// `config check` found nothing wrong.
    static func fine(_ file: ConfigFile, _ language: Language) -> String {
        let path = file.path ?? "?"
        switch (file.exists, language) {
        case (false, .english): return "No config file at \(path): the defaults are in effect."
        case (false, _): return "\(path) 沒有設定檔：使用預設值。"
        case (true, .english): return "\(path): no problems."
        case (true, _): return "\(path)：沒有問題。"
        }
    }
}

/// Errors of `ideabox config`.
enum ConfigCommandError: UserFacingError {
    /// Neither XDG_CONFIG_HOME nor HOME says where the file goes.
    case noHome

    func message(in language: Language) -> String {
        language == .english
            ? "Neither XDG_CONFIG_HOME nor HOME is set, so there is no place for a config file."
            : "沒有設定 XDG_CONFIG_HOME 或 HOME，找不到設定檔的位置。"
    }
}
