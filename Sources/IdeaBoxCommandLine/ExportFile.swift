import Foundation
import IdeaBoxCore

/// The file `import` reads: an `export` of ideas, JSON.
enum ExportFile {
    /// The most problems one refusal lists; it counts the rest.
    static let listedProblems = 20

    /// The POSIX reason a read of `path` failed: the underlying error's code where
    /// Foundation keeps it, else what its own code or the file itself tells.
    private static func posixCode(of error: any Error, path: String) -> Int32? {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileReadNoSuchFile, .fileNoSuchFile: return ENOENT
        case .fileReadNoPermission: return EACCES
        default: break
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return EISDIR }
        return nil
    }

    /// The ideas in the file at `path` (`-`: standard input), each checked as `import` will
    /// store it, or one error that lists every problem found (all or nothing).
    static func read(_ path: String) throws -> [Idea] {
        let data: Data
        do {
            data = path == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandError.unreadableFile(path, errno: Self.posixCode(of: error, path: path))
        }
        // Foundation's decoder takes some text that is not JSON (an unknown escape such as
        // `\q`) and names no position when it refuses: the syntax is checked first.
        if let position = JSONSyntax.firstError(in: Array(data)) {
            throw ImportError.notJSON(path, at: position)
        }
        let entries: [Entry]
        do {
            entries = try JSONDecoder().decode([Entry].self, from: data)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw ImportError.notAnArray(path)
        } catch {
            throw ImportError.notJSON(path, at: JSONSyntax.firstError(in: Array(data)))
        }
        var problems: [ImportError.Problem] = []
        var positions: [UUID: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let position = index + 1
            switch entry.result {
            case let .failure(error):
                problems.append(Self.problem(error, position: position))
            case let .success(idea):
                do {
                    _ = try idea.validated()
                } catch {
                    problems.append(ImportError.Problem(position: position, field: error.field, kind: .invalid(error)))
                }
                if let first = positions[idea.id] {
                    problems.append(ImportError.Problem(position: position, field: "id", kind: .repeated(firstPosition: first)))
                } else {
                    positions[idea.id] = position
                }
            }
        }
        guard problems.isEmpty else { throw ImportError.problems(path, problems) }
        return entries.compactMap { try? $0.result.get() }
    }

    /// One element of the array: an idea, or why it isn't one. Decoding it never throws, so
    /// one bad idea doesn't hide the problems of the next.
    private struct Entry: Decodable {
        let result: Result<Idea, DecodingError>

        init(from decoder: any Decoder) throws {
            do {
                result = .success(try Idea(from: decoder))
            } catch let error as DecodingError {
                result = .failure(error)
            }
        }
    }

    /// The problem a decoding error of the idea at `position` stands for.
    private static func problem(_ error: DecodingError, position: Int) -> ImportError.Problem {
        switch error {
        case let .keyNotFound(key, _):
            return ImportError.Problem(position: position, field: key.stringValue, kind: .missing)
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            // The idea's own key: a path is [index, key] (deeper keys don't occur in an idea).
            guard let key = context.codingPath.last(where: { $0.intValue == nil }) else {
                return ImportError.Problem(position: position, field: nil, kind: .notAnObject)
            }
            return ImportError.Problem(position: position, field: key.stringValue, kind: .wrongValue)
        @unknown default:
            return ImportError.Problem(position: position, field: nil, kind: .notAnObject)
        }
    }
}
