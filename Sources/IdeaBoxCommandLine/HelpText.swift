import Foundation

/// `--help` in Chinese. Each command declares its help in both languages
/// (`.english(_:chinese:)`), so ArgumentParser writes the descriptions in the reader's
/// language; what it adds of its own (headings, its help and version flags, an option's
/// default, the pointer to more help) is English, and is translated here, line by line.
public enum HelpText {
    /// The width ArgumentParser is told the terminal has while it writes help in Chinese: it
    /// counts characters, not columns, so it would wrap wide text late; nothing is wrapped,
    /// and the terminal wraps what is long.
    public static let unwrappedColumns = 100_000

    /// `help`, written by ArgumentParser at `unwrappedColumns` from Chinese declarations, with
    /// ArgumentParser's own words in Chinese too.
    public static func chinese(_ help: String) -> String {
        help.split(separator: "\n", omittingEmptySubsequences: false).map { translated(String($0)) }.joined(separator: "\n")
    }

    private static func translated(_ line: String) -> String {
        switch line {
        case "OPTIONS:": return "選項："
        case "ARGUMENTS:": return "引數："
        case "SUBCOMMANDS:": return "子命令："
        default: break
        }
        if line.hasPrefix("USAGE: ") { return "用法：" + line.dropFirst("USAGE: ".count) }
        if line.hasPrefix("OVERVIEW: ") { return "概要：" + line.dropFirst("OVERVIEW: ".count) }
        var line = line
        for (english, chinese) in flagHelp where line.hasSuffix(english) {
            line = line.dropLast(english.count) + chinese
        }
        if let see = line.range(of: "See '"), line.hasSuffix("' for detailed help.") {
            let command = line[line.index(see.lowerBound, offsetBy: "See ".count)...].dropLast(" for detailed help.".count)
            return line[..<see.lowerBound] + "詳細說明請見 " + command + "。"
        }
        for (english, chinese) in [(" (default: ", "（預設："), (" (values: ", "（可用值：")] where line.hasSuffix(")") {
            guard let range = line.range(of: english, options: .backwards) else { continue }
            return line[..<range.lowerBound] + chinese + line[range.upperBound...].dropLast() + "）"
        }
        return line
    }

    /// The help of the flags ArgumentParser adds to every command.
    private static let flagHelp = [("Show the version.", "顯示版本。"), ("Show help information.", "顯示說明。")]
}
