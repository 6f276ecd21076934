import IdeaModel

/// Why `import` refused a file; it imported nothing.
enum ImportError: UserFacingError, Equatable {
    /// The file is not JSON; where it stops being JSON, if found.
    case notJSON(String, at: JSONSyntax.Position?)
    /// The file is JSON, but neither an export's object nor an array.
    case notAnArray(String)
    /// The file is an export of a format newer than this IdeaBox reads.
    case newerFormat(String, version: Int)
    /// The ideas' problems, in file order.
    case problems(String, [Problem])

    /// One problem of one idea of the file.
    struct Problem: Equatable, Sendable {
        /// The idea's place in the file, from 1.
        var position: Int
        /// The JSON field at fault, if one is.
        var field: String?
        /// What is wrong.
        var kind: Kind

        /// What can be wrong with an idea of an import.
        enum Kind: Equatable, Sendable {
            /// A required field is absent.
            case missing
            /// A field holds a value of the wrong kind (text for a number, a malformed time…).
            case wrongValue
            /// The element is not a JSON object.
            case notAnObject
            /// The idea breaks a rule of ideas.
            case invalid(IdeaValidationError)
            /// The id was already used by the idea at `firstPosition`.
            case repeated(firstPosition: Int)
        }
    }

    func message(in language: Language) -> String {
        switch self {
        case let .notJSON(path, position):
            return CommandLineText.notJSON(path, position, language)
        case let .notAnArray(path):
            return CommandLineText.notAnArray(path, language)
        case let .newerFormat(path, version):
            return CommandLineText.newerFormat(path, version: version, language)
        case let .problems(path, problems):
            let listed = problems.prefix(ExportFile.listedProblems).map { "\n  " + CommandLineText.problem($0, language) }
            let more = problems.count > ExportFile.listedProblems
                ? "\n  " + CommandLineText.moreProblems(problems.count - ExportFile.listedProblems, language) : ""
            return CommandLineText.invalidExport(path, problems: problems.count, language) + listed.joined() + more
        }
    }
}
