/// A TOML value as config.toml's settings need it: strings, booleans, arrays and tables
/// read in full; numbers and dates kept as written (no setting takes one, so they are only
/// ever shown back in a problem).
indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case boolean(Bool)
    /// An integer, float or date-time, as the file writes it.
    case other(String)
    case array([TOMLValue])
    case table(TOMLTable)
    /// An array of tables (`[[name]]`).
    case tables([TOMLTable])

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var bool: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    var array: [TOMLValue]? {
        switch self {
        case .array(let values): values
        case .tables(let tables): tables.map { .table($0) }
        default: nil
        }
    }

    var table: TOMLTable? {
        if case .table(let table) = self { return table }
        return nil
    }

    /// `text` as a TOML basic string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var written = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": written += "\\\""
            case "\\": written += "\\\\"
            case "\t": written += "\\t"
            case "\n": written += "\\n"
            case "\r": written += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                written += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16, uppercase: true)
            default: written.unicodeScalars.append(scalar)
            }
        }
        return written + "\""
    }

    /// The value as TOML would write it inline, for a problem's sentence.
    var written: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .boolean(let value): "\(value)"
        case .other(let text): text
        case .array(let values): "[" + values.map(\.written).joined(separator: ", ") + "]"
        case .table(let table): table.written
        case .tables(let tables): "[" + tables.map(\.written).joined(separator: ", ") + "]"
        }
    }
}

/// A TOML table: its keys in the order the file gives them, each with its value and the
/// line that set it, and the rules of TOML 1.0 for what may be added to it later.
struct TOMLTable: Sendable, Equatable {
    /// How the table came to be, which decides what may still define it.
    enum Origin: Sendable, Equatable {
        /// A `[name]` header (or the file's top).
        case header
        /// Named on the way to a deeper header (`[a]` by `[a.b]`): a header may still define it.
        case implicit
        /// Made by a dotted key (`a.b = 1`): more dotted keys may add to it, no header.
        case dotted
        /// An inline table (`{ … }`): complete as written.
        case inline
    }

    private struct Entry: Sendable, Equatable {
        var value: TOMLValue
        var line: Int
    }

    private(set) var origin: Origin
    /// The line that made the table (0 for the file's top).
    let line: Int
    /// Its keys, in the file's order.
    private(set) var keys: [String] = []
    private var entries: [String: Entry] = [:]

    init(origin: Origin, line: Int) {
        self.origin = origin
        self.line = line
    }

    subscript(key: String) -> TOMLValue? { entries[key]?.value }

    /// The line that set `key`, or nil.
    func line(of key: String) -> Int? { entries[key]?.line }

    var written: String {
        "{ " + keys.map { "\($0) = \(entries[$0]!.value.written)" }.joined(separator: ", ") + " }"
    }

    /// Sets `key`, which must be new.
    mutating func set(_ key: String, to value: TOMLValue, line: Int) throws(TOMLSyntaxError) {
        guard entries[key] == nil else { throw TOMLSyntaxError(line: line, "“\(key)” is set twice") }
        keys.append(key)
        entries[key] = Entry(value: value, line: line)
    }

    /// Runs `body` on the table a header's `path` names, walking from here: tables on the
    /// way are made as `.implicit` when missing, and an array of tables is walked into at its
    /// last table, as TOML 1.0 says.
    mutating func withHeaderTable<Result>(
        _ path: ArraySlice<String>, line: Int, _ body: (inout TOMLTable) throws(TOMLSyntaxError) -> Result
    ) throws(TOMLSyntaxError) -> Result {
        guard let key = path.first else { return try body(&self) }
        let rest = path.dropFirst()
        switch entries[key]?.value {
        case nil:
            var table = TOMLTable(origin: .implicit, line: line)
            let result = try table.withHeaderTable(rest, line: line, body)
            try set(key, to: .table(table), line: line)
            return result
        case .table(var table) where table.origin != .inline:
            entries[key]!.value = .other("")  // taken out while it changes, so it is not copied
            defer { entries[key]!.value = .table(table) }
            return try table.withHeaderTable(rest, line: line, body)
        case .tables(var tables) where !tables.isEmpty:
            entries[key]!.value = .other("")
            defer { entries[key]!.value = .tables(tables) }
            return try tables[tables.count - 1].withHeaderTable(rest, line: line, body)
        default:
            throw TOMLSyntaxError(line: line, "“\(key)” is already a value, not a table")
        }
    }

    /// Defines the table `[path]`: new, or one only named so far on the way to another.
    mutating func defineTable(_ path: [String], line: Int) throws(TOMLSyntaxError) {
        guard let last = path.last else { return }
        try withHeaderTable(path.dropLast(), line: line) { (parent: inout TOMLTable) throws(TOMLSyntaxError) in
            switch parent.entries[last]?.value {
            case nil:
                try parent.set(last, to: .table(TOMLTable(origin: .header, line: line)), line: line)
            case .table(var table) where table.origin == .implicit:
                table.origin = .header
                parent.entries[last]!.value = .table(table)
            default:
                throw TOMLSyntaxError(line: line, "[\(path.joined(separator: "."))] is defined twice")
            }
        }
    }

    /// Adds a table to the array of tables `[[path]]`, making the array if it is new.
    mutating func appendTable(_ path: [String], line: Int) throws(TOMLSyntaxError) {
        guard let last = path.last else { return }
        try withHeaderTable(path.dropLast(), line: line) { (parent: inout TOMLTable) throws(TOMLSyntaxError) in
            let table = TOMLTable(origin: .header, line: line)
            switch parent.entries[last]?.value {
            case nil:
                try parent.set(last, to: .tables([table]), line: line)
            case .tables(var tables):
                parent.entries[last]!.value = .other("")
                tables.append(table)
                parent.entries[last]!.value = .tables(tables)
            default:
                throw TOMLSyntaxError(line: line, "[[\(path.joined(separator: "."))]] names something that is not an array of tables")
            }
        }
    }

    /// Sets a dotted key (`a.b.c = value`): the tables before its last part are made as
    /// `.dotted` (or `.inline` inside an inline table) and may only be ones made so.
    mutating func setDotted(_ path: ArraySlice<String>, to value: TOMLValue, line: Int, inline: Bool) throws(TOMLSyntaxError) {
        guard let key = path.first else { return }
        let rest = path.dropFirst()
        if rest.isEmpty { return try set(key, to: value, line: line) }
        switch entries[key]?.value {
        case nil:
            var table = TOMLTable(origin: inline ? .inline : .dotted, line: line)
            try table.setDotted(rest, to: value, line: line, inline: inline)
            try set(key, to: .table(table), line: line)
        case .table(var table) where table.origin == (inline ? .inline : .dotted):
            entries[key]!.value = .other("")
            defer { entries[key]!.value = .table(table) }
            try table.setDotted(rest, to: value, line: line, inline: inline)
        default:
            throw TOMLSyntaxError(line: line, "“\(key)” is already defined: a dotted key cannot add to it")
        }
    }
}

/// Why a text is not TOML, at its line.
struct TOMLSyntaxError: Error, Sendable, Equatable {
    let line: Int
    let reason: String

    init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }
}
