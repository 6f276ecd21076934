import IdeaBoxFoundation

/// `JSONValue(parsing:)` from bytes, from a buffer and from text must agree, and with reading
/// member by member or element by element (`JSONValue.Reader`); a value it reads must read
/// back equal from its own writing.
enum JSONFuzz {
    /// Parses `bytes` all three ways and checks what it read.
    static func run(_ bytes: [UInt8]) {
        let parsed = try? JSONValue(parsing: bytes)
        let fromBuffer = bytes.withUnsafeBytes { try? JSONValue(parsing: $0) }
        guard parsed == fromBuffer else { fuzzFailure("the [UInt8] and buffer parses differ: \(String(describing: parsed)) vs \(String(describing: fromBuffer))") }
        if let text = String(validating: bytes, as: UTF8.self) {
            let fromText = try? JSONValue(parsing: text)
            guard parsed == fromText else { fuzzFailure("the byte and String parses differ: \(String(describing: parsed)) vs \(String(describing: fromText))") }
            checkReader(text, parsed: parsed)
        }
        checkStrictReaders(bytes, parsed: parsed)
        guard let value = parsed else { return }
        // Non-finite doubles are written as null by design (`write(to:)`).
        guard isFinite(value) else { return }
        let written = value.bytes
        let again: JSONValue
        do {
            again = try JSONValue(parsing: written)
        } catch {
            fuzzFailure("its own writing does not parse (\(error)): \(String(decoding: written, as: UTF8.self))")
        }
        guard again == value else { fuzzFailure("written and read back it differs: \(value) became \(again)") }
    }

    /// Reading `text` member by member (`JSONValue.Reader`) must find what the whole parse
    /// found: the same members of an object, and a refusal of anything else, except a name
    /// written twice, which the reader hands over twice.
    private static func checkReader(_ text: String, parsed: JSONValue?) {
        var members: JSONValue.Object = [:]
        var repeated = false
        let read: Void? = try? JSONValue.reading(text) { reader in
            try reader.forEachMember { name, value in
                if members.updateValue(try value.value(), forKey: name) != nil { repeated = true }
            }
        }
        switch parsed {
        case .object(let whole)?:
            guard read != nil, !repeated, members == whole else { fuzzFailure("read member by member, the object differs: \(members) vs \(whole)") }
        case nil:
            guard read == nil || repeated else { fuzzFailure("read member by member, a refused text was read: \(members)") }
        case _?:
            guard read == nil else { fuzzFailure("members were read of a value that is not an object") }
        }
    }

    /// Reading `bytes` element by element, or member by member refusing repeated names, must
    /// find exactly what the whole parse found, and refuse exactly what it refused.
    private static func checkStrictReaders(_ bytes: [UInt8], parsed: JSONValue?) {
        var elements: [JSONValue] = []
        let readElements: Void? = bytes.withUnsafeBytes { raw in
            try? JSONValue.reading(raw) { reader in try reader.forEachElement { elements.append(try $0.value()) } }
        }
        var members: JSONValue.Object = [:]
        let readMembers: Void? = bytes.withUnsafeBytes { raw in
            try? JSONValue.reading(raw) { reader in
                try reader.forEachMember(refusingRepeatedNames: true) { name, value in members[name] = try value.value() }
            }
        }
        switch parsed {
        case .array(let whole)?:
            guard readElements != nil, elements == whole else { fuzzFailure("read element by element, the array differs: \(elements) vs \(whole)") }
            guard readMembers == nil else { fuzzFailure("members were read of an array") }
        case .object(let whole)?:
            guard readMembers != nil, members == whole else { fuzzFailure("read refusing repeated names, the object differs: \(members) vs \(whole)") }
            guard readElements == nil else { fuzzFailure("elements were read of an object") }
        default:
            guard readElements == nil, readMembers == nil else { fuzzFailure("a refused text or a scalar was read as an array or an object") }
        }
    }

    /// Whether every number in `value` is finite.
    private static func isFinite(_ value: JSONValue) -> Bool {
        switch value {
        case .double(let number): number.isFinite
        case .array(let items): items.allSatisfy(isFinite)
        case .object(let members): members.values.allSatisfy(isFinite)
        case .null, .bool, .integer, .string: true
        }
    }
}
