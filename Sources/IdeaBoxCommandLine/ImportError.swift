import IdeaBoxFoundation
import IdeaModel

/// Why `import` refused a file; it imported nothing.
enum ImportError: UserFacingError, Equatable {
    /// The file is not I-JSON (RFC 7493): where it stops being so, and which rule it breaks.
    case notJSON(String, at: Position, rule: JSONValue.Invalid.Kind)
    /// The file is JSON, but neither an export's object nor an array.
    case notAnArray(String)
    /// The file is an export of a format newer than this IdeaBox reads.
    case newerFormat(String, version: Int)
    /// The ideas' problems, in file order.
    case problems(String, [Problem])

    /// A place in a file, both counted from 1; the column counts characters as a person sees them.
    struct Position: Equatable {
        var line: Int
        var column: Int

        /// The place of byte `offset` of `bytes`.
        init(of offset: Int, in bytes: some BidirectionalCollection<UInt8>) {
            let before = bytes.prefix(offset)
            let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map(before.index(after:)) ?? before.startIndex
            line = before.count { $0 == UInt8(ascii: "\n") } + 1
            column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        }

        init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

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
        case let .notJSON(path, position, rule):
            return CommandLineText.notJSON(path, position, rule, language)
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
