import IdeaBoxFoundation

/// `JSONValue(parsing:)` from bytes, from a buffer and from text must agree, and a value it
/// reads must read back equal from its own writing.
enum JSONFuzz {
    /// Parses `bytes` all three ways and checks what it read.
    static func run(_ bytes: [UInt8]) {
        let parsed = try? JSONValue(parsing: bytes)
        let fromBuffer = bytes.withUnsafeBytes { try? JSONValue(parsing: $0) }
        guard parsed == fromBuffer else { fuzzFailure("the [UInt8] and buffer parses differ: \(String(describing: parsed)) vs \(String(describing: fromBuffer))") }
        if let text = String(validating: bytes, as: UTF8.self) {
            let fromText = try? JSONValue(parsing: text)
            guard parsed == fromText else { fuzzFailure("the byte and String parses differ: \(String(describing: parsed)) vs \(String(describing: fromText))") }
        }
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
