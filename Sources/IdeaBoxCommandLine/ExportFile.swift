import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// The file `export` writes and `import` reads, JSON: an object of the format's version and
/// the ideas, each with the stamps of its fields (`fieldStamps`), which an import merges by.
/// A file of format 1, written before stamps, is the array of ideas alone; it still imports.
enum ExportFile {
    /// The version of the format `export` writes: 2, the ideas with their field stamps.
    static let formatVersion = 2

    /// The most problems one refusal lists; it counts the rest.
    static let listedProblems = 20

    /// Writes an export: the format's version, then each idea with its stamps (read with
    /// `withStamps`), in the order given.
    struct Writer {
        private var isEmpty = true

        /// The text before the first idea.
        private static let opening = "{\n  \"formatVersion\" : \(ExportFile.formatVersion),\n  \"ideas\" : ["

        /// The indent of each idea's lines inside the array.
        private static var indent: StaticString { "    " }

        /// Writes an idea, read as bytes.
        mutating func write(_ idea: IdeaBytes, to output: inout Output.BufferedWriter) {
            if isEmpty { output.write(Self.opening) }
            let separator: StaticString = isEmpty ? "\n    " : ",\n    "
            output.write(maximumCount: separator.utf8CodeUnitCount + idea.mostJSONCount(indentCount: Self.indent.utf8CodeUnitCount)) {
                $0.put(separator)
                idea.writeJSON(to: &$0, indent: UnsafeBufferPointer(start: Self.indent.utf8Start, count: Self.indent.utf8CodeUnitCount))
            }
            isEmpty = false
        }

        /// Closes the array and the object.
        func finish(to output: inout Output.BufferedWriter) {
            output.write(isEmpty ? Self.opening + "]\n}\n" : "\n  ]\n}\n")
        }
    }

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
    /// store it, with its field stamps if the file has them, or one error that lists every
    /// problem found (all or nothing).
    static func read(_ path: String) throws -> [ExportedIdea] {
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
            let document = try JSONDecoder().decode(Document.self, from: data)
            guard document.formatVersion <= formatVersion else {
                throw ImportError.newerFormat(path, version: document.formatVersion)
            }
            entries = document.ideas
        } catch let error as ImportError {
            throw error
        } catch is Document.NotAnExport {
            throw ImportError.notAnArray(path)
        } catch {
            // The syntax held (checked above): what the decoder refused has no position to name.
            throw ImportError.notJSON(path, at: nil)
        }
        var problems: [ImportError.Problem] = []
        var positions: [UUID: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let position = index + 1
            if let id = entry.id {
                if let first = positions[id] {
                    problems.append(ImportError.Problem(position: position, field: "id", kind: .repeated(firstPosition: first)))
                } else {
                    positions[id] = position
                }
            }
            problems += entry.faults.map { ImportError.Problem(position: position, field: $0.field, kind: $0.kind) }
        }
        guard problems.isEmpty else { throw ImportError.problems(path, problems) }
        return entries.compactMap(\.idea)
    }

    /// The whole file: an object of format 2 or later, or format 1's array of ideas.
    private struct Document: Decodable {
        /// The format's version.
        var formatVersion: Int
        /// The ideas, in file order.
        var ideas: [Entry]

        /// JSON that is neither an array nor an object with the version and the ideas.
        struct NotAnExport: Error {}

        private enum Key: String, CodingKey {
            case formatVersion, ideas
        }

        init(from decoder: any Decoder) throws {
            if let ideas = try? decoder.singleValueContainer().decode([Entry].self) {
                (formatVersion, self.ideas) = (1, ideas)
                return
            }
            guard let fields = try? decoder.container(keyedBy: Key.self),
                let version = try? fields.decode(Int.self, forKey: .formatVersion),
                let ideas = try? fields.decode([Entry].self, forKey: .ideas)
            else { throw NotAnExport() }
            (formatVersion, self.ideas) = (version, ideas)
        }
    }

    /// One element of the array: an idea, or every problem it has. Each field is read on its
    /// own and every rule checked (`Idea`'s decoding and `validated()` stop at the first), so
    /// one bad field hides neither the problems of the others nor those of the next idea.
    private struct Entry: Decodable {
        /// The idea and its stamps, when every field could be read and keeps every rule.
        private(set) var idea: ExportedIdea?
        /// The id, when it could be read: a repeated one is a problem even of a broken idea.
        private(set) var id: UUID?
        /// What is wrong, in the order of the idea's fields.
        private(set) var faults: [(field: String?, kind: ImportError.Problem.Kind)] = []

        /// An idea's fields, as `export` writes them, in the order problems are listed.
        private enum Field: String, CodingKey, CaseIterable {
            case id, title, description, isCompleted, createdAt, updatedAt, deviceId, version, lastSyncedAt, fieldStamps
        }

        /// `fieldStamps`: each field's stamp.
        private struct Stamps: Decodable {
            var title: Stamp
            var description: Stamp
            var isCompleted: Stamp

            /// When, and by which device, a field was last written.
            struct Stamp: Decodable {
                var updatedAt: Timestamp
                var deviceId: String
            }

            /// The stamps as the merge takes them.
            var fieldStamps: FieldStamps {
                func order(_ stamp: Stamp) -> SyncOrder { SyncOrder(timestamp: stamp.updatedAt, deviceId: stamp.deviceId) }
                return FieldStamps(title: order(title), description: order(description), isCompleted: order(isCompleted))
            }
        }

        init(from decoder: any Decoder) throws {
            guard let fields = try? decoder.container(keyedBy: Field.self) else {
                faults = [(nil, .notAnObject)]
                return
            }
            var unreadable: [Field: ImportError.Problem.Kind] = [:]
            // The value of `field`, or nil: absent (a problem if `required`), or unreadable (null
            // where a value is required, or a value of the wrong kind).
            func read<Value: Decodable>(_ field: Field, required: Bool = false) -> Value? {
                do {
                    return required ? try fields.decode(Value.self, forKey: field) : try fields.decodeIfPresent(Value.self, forKey: field)
                } catch DecodingError.keyNotFound {
                    unreadable[field] = .missing
                } catch {
                    unreadable[field] = .wrongValue
                }
                return nil
            }
            let idText: String? = read(.id, required: true)
            id = idText.flatMap { UUID(hexText: $0) }
            if idText != nil, id == nil { unreadable[.id] = .wrongValue }
            let title: String? = read(.title, required: true)
            let description: String? = read(.description)
            let isCompleted: Bool? = read(.isCompleted)
            let createdAt: Timestamp? = read(.createdAt, required: true)
            let updatedAt: Timestamp? = read(.updatedAt)
            let deviceId: String? = read(.deviceId, required: true)
            let version: Int? = read(.version)
            let lastSyncedAt: Timestamp? = read(.lastSyncedAt)
            let stamps: Stamps? = read(.fieldStamps)
            let broken = IdeaRules.violations(
                title: title, description: description, createdAt: createdAt, updatedAt: updatedAt, deviceId: deviceId, version: version)
            let rules = Dictionary(broken.map { ($0.field, $0) }) { first, _ in first }
            faults = Field.allCases.compactMap { field in
                unreadable[field].map { (field.rawValue, $0) } ?? rules[field.rawValue].map { (field.rawValue, .invalid($0)) }
            }
            guard faults.isEmpty, let id, let title, let createdAt, let deviceId else { return }
            idea = ExportedIdea(
                idea: Idea(
                    id: id, title: title, description: description ?? "", isCompleted: isCompleted ?? false,
                    createdAt: createdAt, updatedAt: updatedAt, deviceId: deviceId, version: version ?? 0,
                    lastSyncedAt: lastSyncedAt),
                stamps: stamps?.fieldStamps)
        }
    }
}
