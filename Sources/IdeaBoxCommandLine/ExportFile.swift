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
        // Read as I-JSON (RFC 7493): besides JSON's syntax, a name twice in one object, bytes
        // that are not UTF-8 and half a surrogate pair are refused, each named by its place.
        // Idea by idea: the file's whole tree was four times the file (2.9 GB for a million
        // ideas' 717 MiB), and building it about a twentieth of the import's time.
        var entries: [Entry] = []
        var layout = Layout.other
        do {
            try data.withUnsafeBytes { bytes in
                try JSONValue.reading(bytes) { reader in
                    layout = try Self.readIdeas(&reader) { entries.append(Entry(try $0.value())) }
                }
            }
        } catch let error as JSONValue.Invalid {
            throw ImportError.notJSON(path, at: ImportError.Position(of: error.offset, in: data), rule: error.kind)
        }
        switch layout {
        case .array:
            break
        case .versioned(let version):
            guard version <= formatVersion else { throw ImportError.newerFormat(path, version: version) }
        case .other:
            throw ImportError.notAnArray(path)
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

    /// How the file holds its ideas.
    private enum Layout {
        /// An array of ideas: format 1.
        case array
        /// An object of the format's version and the array of ideas.
        case versioned(Int)
        /// Neither.
        case other
    }

    /// Reads the file's one value, handing `idea` a reader at each idea of its array of ideas
    /// (which it reads whole), and says how the file holds them. Whatever else the value
    /// holds is read, to the same rules, and left.
    private static func readIdeas(_ reader: inout JSONValue.Reader, _ idea: (inout JSONValue.Reader) throws -> Void) throws -> Layout {
        if reader.isAtArray() {
            try reader.forEachElement(idea)
            return .array
        }
        guard reader.isAtObject() else {
            _ = try reader.value()
            return .other
        }
        var version: Int?
        var hasIdeas = false
        try reader.forEachMember(refusingRepeatedNames: true) { name, value in
            switch name {
            case "formatVersion":
                version = try value.value().wholeNumber.flatMap { Int(exactly: $0) }
            case "ideas" where value.isAtArray():
                try value.forEachElement(idea)
                hasIdeas = true
            default:
                _ = try value.value()
            }
        }
        guard let version, hasIdeas else { return .other }
        return .versioned(version)
    }

    /// One element of the array: an idea, or every problem it has. Each field is read on its
    /// own and every rule checked (`Idea`'s decoding and `validated()` stop at the first), so
    /// one bad field hides neither the problems of the others nor those of the next idea.
    private struct Entry {
        /// The idea and its stamps, when every field could be read and keeps every rule.
        private(set) var idea: ExportedIdea?
        /// The id, when it could be read: a repeated one is a problem even of a broken idea.
        private(set) var id: UUID?
        /// What is wrong, in the order of the idea's fields.
        private(set) var faults: [(field: String?, kind: ImportError.Problem.Kind)] = []

        /// An idea's fields, as `export` writes them, in the order problems are listed.
        private enum Field: String, CaseIterable {
            case id, title, description, isCompleted, createdAt, updatedAt, deviceId, version, lastSyncedAt, fieldStamps
        }

        init(_ element: JSONValue) {
            guard let fields = element.object else {
                faults = [(nil, .notAnObject)]
                return
            }
            var unreadable: [Field: ImportError.Problem.Kind] = [:]
            // The value of `field`, or nil: absent (a problem if `required`), null (a problem if
            // `required`), or of the wrong kind.
            func read<Value>(_ field: Field, required: Bool = false, as value: (JSONValue) -> Value?) -> Value? {
                switch fields[field.rawValue] {
                case nil:
                    if required { unreadable[field] = .missing }
                case .null?:
                    if required { unreadable[field] = .wrongValue }
                case let json?:
                    if let read = value(json) { return read }
                    unreadable[field] = .wrongValue
                }
                return nil
            }
            let idText = read(.id, required: true, as: \.string)
            id = idText.flatMap { UUID(hexText: $0) }
            if idText != nil, id == nil { unreadable[.id] = .wrongValue }
            let title = read(.title, required: true, as: \.string)
            let description = read(.description, as: \.string)
            let isCompleted = read(.isCompleted, as: \.bool)
            let createdAt = read(.createdAt, required: true, as: Self.timestamp)
            let updatedAt = read(.updatedAt, as: Self.timestamp)
            let deviceId = read(.deviceId, required: true, as: \.string)
            let version = read(.version) { $0.wholeNumber.flatMap { Int(exactly: $0) } }
            let lastSyncedAt = read(.lastSyncedAt, as: Self.timestamp)
            let stamps = read(.fieldStamps, as: Self.stamps)
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
                stamps: stamps)
        }

        /// A time as `export` writes it: ISO 8601 in UTC.
        private static func timestamp(_ json: JSONValue) -> Timestamp? {
            json.string.flatMap(Timestamp.init(iso8601:))
        }

        /// `fieldStamps`: when, and by which device, each field was last written.
        private static func stamps(_ json: JSONValue) -> FieldStamps? {
            func stamp(_ name: String) -> SyncOrder? {
                guard let stamp = json.object?[name]?.object, let updatedAt = stamp["updatedAt"].flatMap(timestamp),
                    let deviceId = stamp["deviceId"]?.string
                else { return nil }
                return SyncOrder(timestamp: updatedAt, deviceId: deviceId)
            }
            guard let title = stamp("title"), let description = stamp("description"), let isCompleted = stamp("isCompleted") else {
                return nil
            }
            return FieldStamps(title: title, description: description, isCompleted: isCompleted)
        }
    }
}
