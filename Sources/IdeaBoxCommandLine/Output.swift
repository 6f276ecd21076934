import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// How the command line prints ideas, as text for people or JSON for programs.
public enum Output {
    /// Writes a line to standard error, prefixed with the program name.
    public static func error(_ message: String) {
        FileHandle.standardError.write(Data("ideabox: \(message)\n".utf8))
    }

    /// Writes a line to standard error as it is: a note beside the output, not an error.
    public static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    /// Standard output through one buffer, written out in large pieces: a page of rows is
    /// one `write(2)`, where `print` locks and writes line by line.
    public struct BufferedWriter: ~Copyable {
        private var bytes: [UInt8] = []
        /// Everything written, for a writer that holds everything: in memory mapped for it
        /// in huge pages, since an export fills megabytes of it (`HeldBytes`).
        private var held = HeldBytes()
        private static let flushAt = 1 << 16
        /// Whether the output is written only by `flush()`: all of it or, if whatever makes
        /// it fails first, none.
        private let holdsEverything: Bool

        /// Where the bytes go: standard output, or a file (`OutputFile`).
        private let descriptor: Int32
        /// Why a write to the descriptor failed (`errno`), if one did; a file's writer says so,
        /// where standard output's ends quietly at a closed pipe.
        public private(set) var failure: Int32?

        /// A writer that writes out every 64 KB, or (`holdsEverything`) only when flushed.
        public init(holdsEverything: Bool = false) {
            self.holdsEverything = holdsEverything
            descriptor = STDOUT_FILENO
            if !holdsEverything { bytes.reserveCapacity(Self.flushAt) }
        }

        /// A writer that writes out to `descriptor` every 64 KB.
        init(descriptor: Int32) {
            holdsEverything = false
            self.descriptor = descriptor
            bytes.reserveCapacity(Self.flushAt)
        }

        /// Drops what is buffered, unwritten.
        mutating func discard() {
            bytes.removeAll(keepingCapacity: true)
            held = HeldBytes()
        }

        public mutating func write(_ text: String) {
            guard holdsEverything else {
                bytes.append(contentsOf: text.utf8)
                return wrote()
            }
            var text = text
            text.withUTF8 { held.append(UnsafeRawBufferPointer($0)) }
        }

        /// Lets `body` write at most `maximumCount` bytes after those written (`ByteOutput`
        /// stops the program rather than write past them).
        public mutating func write(maximumCount: Int, _ body: (inout ByteOutput) -> Void) {
            guard holdsEverything else {
                bytes.append(addingCapacity: maximumCount) { span in
                    span.withUnsafeMutableBufferPointer { room, count in
                        var output = ByteOutput(room)
                        body(&output)
                        count = output.count
                    }
                }
                return wrote()
            }
            held.write(maximumCount: maximumCount, body)
        }

        /// Writes out a full buffer.
        private mutating func wrote() {
            if bytes.count >= Self.flushAt { flush() }
        }

        /// What is buffered, not yet written out, in one array.
        public var buffered: [UInt8] {
            guard holdsEverything else { return bytes }
            var all: [UInt8] = []
            all.reserveCapacity(held.count)
            held.forEachPiece { all.append(contentsOf: $0) }
            return all
        }

        /// Writes out what is buffered.
        public mutating func flush() {
            guard holdsEverything else {
                writeOut()
                return bytes.removeAll(keepingCapacity: true)
            }
            held.forEachPiece { _ = Descriptor.writeAll($0, to: STDOUT_FILENO) }
            held = HeldBytes()
        }

        /// Standard output's writer writes what is left; a file's is flushed by its command,
        /// which then says whether the file is put out at all.
        deinit {
            if !holdsEverything && descriptor == STDOUT_FILENO {
                _ = bytes.withUnsafeBytes { Descriptor.writeAll($0, to: STDOUT_FILENO) }
            }
        }

        /// Writes what is buffered to the descriptor, retrying short writes; the first
        /// failure is kept (`failure`) and nothing more is written after it.
        private mutating func writeOut() {
            guard failure == nil, !bytes.isEmpty else { return }
            if !bytes.withUnsafeBytes({ Descriptor.writeAll($0, to: descriptor) }) { failure = errno }
        }
    }

    /// An idea as one list line: short id, done mark, title.
    public static func line(_ idea: Idea) -> String {
        "\(idea.shortId)  [\(idea.isCompleted ? "x" : " ")] \(idea.title)"
    }

    /// Every field of an idea, one per line, labelled in `language`; the device that last
    /// wrote it is called by `names`.
    public static func details(_ idea: Idea, language: Language, names: DeviceNames) -> String {
        let labels = language == .english
            ? ["id", "title", "completed", "created", "updated", "device", "version", "last synced", "description"]
            : ["識別碼", "標題", "已完成", "建立時間", "更新時間", "裝置", "版本", "上次同步", "描述"]
        let yes = language == .english ? "yes" : "是"
        let no = language == .english ? "no" : "否"
        let never = language == .english ? "never" : "從未"
        let values = [
            idea.idString, idea.title, idea.isCompleted ? yes : no, idea.createdAt.iso8601, idea.updatedAt.iso8601,
            names.name(of: idea.deviceId, in: language), String(idea.version), idea.lastSyncedAt?.iso8601 ?? never,
        ]
        var lines = zip(labels, values).map { label, value in "\(label): \(value)" }
        lines.append(labels[8] + ":")
        if !idea.description.isEmpty {
            lines.append(contentsOf: idea.description.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 })
        }
        return lines.joined(separator: "\n")
    }

    /// An idea's versions as `ideabox history` prints them: a heading line for each (its
    /// number, or `current`; when and on which device, by `names`, it was written; why it
    /// was replaced and in which fields), then its values, indented.
    public static func history(_ versions: [IdeaVersion], language: Language, names: DeviceNames) -> String {
        let english = language == .english
        var lines: [String] = []
        for version in versions {
            let number = version.number.map { (english ? "version " : "版本 ") + String($0) } ?? (english ? "current" : "目前")
            var heading = "\(number)  \(version.writtenAt.iso8601)  \(names.on(version.writtenBy, in: language))"
            if let reason = version.reason, let replacedAt = version.replacedAt {
                let fields = version.fields.map { $0.name(in: language) }.joined(separator: ", ")
                heading += "  " + reason.text(in: language) + (english ? " at " : "，") + replacedAt.iso8601
                if !fields.isEmpty { heading += english ? " (\(fields))" : "（\(fields)）" }
            }
            lines.append(heading)
            if version.isDeleted {
                lines.append(english ? "  deleted" : "  已刪除")
            } else {
                lines.append("  \(IdeaField.title.name(in: language)): \(version.title)")
                lines.append("  \(IdeaField.isCompleted.name(in: language)): \(version.isCompleted ? (english ? "yes" : "是") : (english ? "no" : "否"))")
                lines.append("  \(IdeaField.description.name(in: language)):")
                for line in version.description.split(separator: "\n", omittingEmptySubsequences: false) where !version.description.isEmpty {
                    lines.append("    " + line)
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A value (an idea, a status, a log) as pretty-printed JSON with sorted keys.
    public static func json(_ value: some Encodable) throws -> String {
        // Foundation on Linux writes an empty array as `[`, a blank line and `]`; print
        // `[]` as the list commands do. A raw newline is never inside a JSON string, so
        // this only touches layout.
        // `export` streams every idea through here, and ideas hold no arrays: skip the
        // regular expression unless an array was written.
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        guard text.contains("[\n") else { return text }
        return text.replacingOccurrences(of: #"\[\n\s*\]"#, with: "[]", options: .regularExpression)
    }

    /// Prints ideas as a JSON array as they come, without holding them all.
    public struct JSONArrayWriter {
        private var isEmpty = true

        public init() {}

        /// Writes an idea, read as bytes.
        public mutating func write(_ idea: IdeaBytes, to output: inout BufferedWriter) {
            let separator: StaticString = isEmpty ? "[\n  " : ",\n  "
            output.write(maximumCount: separator.utf8CodeUnitCount + idea.mostJSONCount(indentCount: Self.indent.utf8CodeUnitCount)) {
                $0.put(separator)
                idea.writeJSON(to: &$0, indent: UnsafeBufferPointer(start: Self.indent.utf8Start, count: Self.indent.utf8CodeUnitCount))
            }
            isEmpty = false
        }

        /// The indent of each idea's lines inside the array.
        private static var indent: StaticString { "  " }

        public func finish(to output: inout BufferedWriter) {
            output.write(isEmpty ? "[]\n" : "\n]\n")
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // Without sortedKeys the key order changes from one process to the next, so two
        // exports of the same ideas would differ.
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
