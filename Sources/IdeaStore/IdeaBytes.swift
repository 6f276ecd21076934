import IdeaBoxFoundation

/// An idea's fields as UTF-8 bytes and numbers, borrowed from wherever they are kept: a
/// store's row, or an `Idea`'s strings. `export` writes ideas as JSON from these without
/// making a `String`, a `UUID` or an `Idea` of each.
public struct IdeaBytes {
    /// The id as `Idea.idString` spells it: lower-case, with dashes.
    public var id: UnsafeBufferPointer<UInt8>
    public var title: UnsafeBufferPointer<UInt8>
    public var description: UnsafeBufferPointer<UInt8>
    public var isCompleted: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    public var deviceId: UnsafeBufferPointer<UInt8>
    public var version: Int
    public var lastSyncedAt: Timestamp?
    /// The stamps of the fields, when read with them (`export`): written as `fieldStamps`.
    public var stamps: Stamps?

    /// One field's stamp: when, and by which device, it was last written.
    public struct Stamp {
        /// The time of the write.
        public var time: Timestamp
        /// The writer's device id.
        public var deviceId: UnsafeBufferPointer<UInt8>

        /// A stamp at `time` by `deviceId`.
        public init(time: Timestamp, deviceId: UnsafeBufferPointer<UInt8>) {
            self.time = time
            self.deviceId = deviceId
        }
    }

    /// The stamps of the title, the description and the done flag (`FieldStamps`).
    public struct Stamps {
        /// The title's stamp.
        public var title: Stamp
        /// The description's stamp.
        public var description: Stamp
        /// The done flag's stamp.
        public var isCompleted: Stamp

        /// The three fields' stamps.
        public init(title: Stamp, description: Stamp, isCompleted: Stamp) {
            self.title = title
            self.description = description
            self.isCompleted = isCompleted
        }
    }

    /// An idea's fields, and its field stamps if read.
    public init(
        id: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, description: UnsafeBufferPointer<UInt8>,
        isCompleted: Bool, createdAt: Timestamp, updatedAt: Timestamp, deviceId: UnsafeBufferPointer<UInt8>, version: Int,
        lastSyncedAt: Timestamp?, stamps: Stamps? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.isCompleted = isCompleted
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deviceId = deviceId
        self.version = version
        self.lastSyncedAt = lastSyncedAt
        self.stamps = stamps
    }

    /// Whether `bytes` spell an id as `Idea.idString` does: 36 characters, lower-case
    /// hexadecimal digits in groups of 8, 4, 4, 4 and 12, joined by dashes.
    public static func isIdText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36, let start = bytes.baseAddress else { return false }
        for index in 0..<36 {
            let byte = start[index]
            switch index {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            default: guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    /// Appends the idea as `Idea.jsonText(indent:)` writes it: pretty-printed, keys sorted,
    /// each line after the first starting with `indent`.
    public func writeJSON(to bytes: inout [UInt8], indent: String = "") {
        var indent = indent
        indent.withUTF8 { indent in
            bytes.append(addingCapacity: mostJSONCount(indentCount: indent.count)) { span in
                span.withUnsafeMutableBufferPointer { room, count in
                    var output = ByteOutput(room)
                    writeJSON(to: &output, indent: indent)
                    count = output.count
                }
            }
        }
    }

    /// The most bytes `writeJSON` writes for this idea with an indent of `indentCount` bytes:
    /// room to reserve once for it. The keys, punctuation and version take under 200 bytes; a
    /// string at most 6 for each of its bytes (`\u001f`) and its quotes.
    public func mostJSONCount(indentCount: Int) -> Int {
        let strings = id.count + title.count + description.count + deviceId.count
        return 400 + 11 * indentCount + 3 * Timestamp.mostISO8601Count + 6 * strings + 8 + mostStampsJSONCount(indentCount)
    }

    /// The most bytes `fieldStamps` takes: its key and braces under 40 and two indents;
    /// each field's name, keys and punctuation under 80, four indents, its time and its device
    /// id (at most 6 bytes for each byte).
    private func mostStampsJSONCount(_ indentCount: Int) -> Int {
        guard let stamps else { return 0 }
        let deviceIds = stamps.title.deviceId.count + stamps.description.deviceId.count + stamps.isCompleted.deviceId.count
        return 40 + 2 * indentCount + 3 * (80 + 4 * indentCount + Timestamp.mostISO8601Count) + 6 * deviceIds
    }

    /// Writes the idea as `writeJSON(to:indent:)` does, into room of at least
    /// `mostJSONCount(indentCount:)` bytes. `export` writes ten keys and eight values for each
    /// idea through a `ByteOutput`, which checks the room before each write: an estimate that
    /// fell short would stop the program, never write past the room.
    ///
    /// The pieces are written inline, each of a length known where it is written, so that no
    /// copy of a few bytes is a call to `memmove` (ten keys an idea: 40% of the `memmove`
    /// calls an export made).
    public func writeJSON(to output: inout ByteOutput, indent: UnsafeBufferPointer<UInt8>) {
        @inline(__always) func key(_ name: StaticString) {
            for byte in indent { output.put(byte) }
            output.put(#"  ""#)
            output.put(name)
            output.put(#"" : "#)
        }
        @inline(__always) func string(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
            key(name)
            JSONString.write(value, to: &output)
            output.put(",\n")
        }
        // `createdAt`'s text, which `updatedAt` repeats when they are equal (an idea never
        // edited): one timestamp written out of two.
        var created = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let createdCount = withUnsafeMutableBytes(of: &created) { room in
            createdAt.writeISO8601(into: room.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        @inline(__always) func time(_ name: StaticString, _ value: Timestamp) {
            key(name)
            output.put(UInt8(ascii: "\""))
            if value == createdAt {
                withUnsafeBytes(of: created) { text in
                    output.put(UnsafeBufferPointer(start: text.baseAddress!.assumingMemoryBound(to: UInt8.self), count: createdCount))
                }
            } else {
                output.put(maximumCount: Timestamp.mostISO8601Count) { value.writeISO8601(into: $0) }
            }
            output.put("\",\n")
        }
        output.put("{\n")
        time("createdAt", createdAt)
        string("description", description)
        string("deviceId", deviceId)
        if let stamps {
            // As `JSONEncoder` nests an object: each level two more spaces, keys sorted.
            key("fieldStamps")
            output.put("{\n")
            @inline(__always) func stamp(_ name: StaticString, _ stamp: Stamp, last: Bool) {
                output.put(indent)
                output.put("    \"")
                output.put(name)
                output.put("\" : {\n")
                output.put(indent)
                output.put("      \"deviceId\" : ")
                JSONString.write(stamp.deviceId, to: &output)
                output.put(",\n")
                output.put(indent)
                output.put("      \"updatedAt\" : \"")
                output.put(maximumCount: Timestamp.mostISO8601Count) { stamp.time.writeISO8601(into: $0) }
                output.put("\"\n")
                output.put(indent)
                output.put(last ? "    }\n" : "    },\n")
            }
            stamp("description", stamps.description, last: false)
            stamp("isCompleted", stamps.isCompleted, last: false)
            stamp("title", stamps.title, last: true)
            output.put(indent)
            output.put("  },\n")
        }
        string("id", id)
        key("isCompleted")
        output.put(isCompleted ? "true,\n" : "false,\n")
        if let lastSyncedAt {
            time("lastSyncedAt", lastSyncedAt)
        } else {
            key("lastSyncedAt")
            output.put("null,\n")
        }
        string("title", title)
        time("updatedAt", updatedAt)
        key("version")
        output.putDecimal(version)
        output.put(UInt8(ascii: "\n"))
        output.put(indent)
        output.put(UInt8(ascii: "}"))
    }
}
