import Foundation
import IdeaBoxCore

/// The file `import` reads: an `export` of ideas, JSON.
enum ExportFile {
    /// The ideas in the file at `path` (`-`: standard input), or one error that says where
    /// the file went wrong.
    static func read(_ path: String) throws -> [Idea] {
        let data: Data
        do {
            data = path == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandError.unreadableFile(path, reason: (error as NSError).localizedDescription)
        }
        do {
            return try JSONDecoder().decode([Idea].self, from: data)
        } catch let error as DecodingError {
            throw CommandError.invalidJSON(path, reason: Self.describe(error))
        }
    }

    /// A decoding error in one line: where in the file, and what was wrong.
    private static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        var detail: String
        switch error {
        case let .dataCorrupted(errorContext):
            context = errorContext
            detail = errorContext.underlyingError.map { ($0 as NSError).localizedDescription } ?? errorContext.debugDescription
            if context.codingPath.isEmpty { detail = "not JSON (\(detail))" }
        case let .keyNotFound(key, errorContext):
            context = errorContext
            detail = "missing \"\(key.stringValue)\""
        case let .typeMismatch(_, errorContext), let .valueNotFound(_, errorContext):
            context = errorContext
            detail = errorContext.debugDescription
        @unknown default:
            return String(describing: error)
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return (path.isEmpty ? "" : "at \(path): ") + detail + (detail.hasSuffix(".") ? "" : ".")
    }
}
