extension JSONValue {
    /// A JSON text read in place, value by value: an object's members can be read one at a
    /// time (`forEachMember`) without building the object, by the same parser and to the
    /// same rules as `init(parsing:)`. The server reads every stored record's fields so
    /// (`StoredFields.decode`): reading them as a whole `JSONValue` tree, a dictionary for each
    /// field, was about two fifths of serve's work for a page of zone changes (perf;
    /// BENCHMARKS.md, "A million through `serve`").
    ///
    /// A reader exists only inside `JSONValue.reading(_:_:)`, over the text's bytes.
    public struct Reader: ~Copyable {
        fileprivate var parser: Parser

        /// The next value, whole.
        public mutating func value() throws -> JSONValue {
            try parser.value()
        }

        /// Reads the next value, which must be an object, handing `body` each member's name and
        /// this reader at the member's value, in the order written; `body` reads the value
        /// (`value()`, `forEachMember` or `forEachElement`). A name written twice is handed
        /// over twice, or with `refusingRepeatedNames` refused where it is written again, as
        /// `init(parsing:)` refuses it.
        public mutating func forEachMember(
            refusingRepeatedNames: Bool = false, _ body: (String, inout Reader) throws -> Void
        ) throws {
            try parser.members(refusingRepeatedNames: refusingRepeatedNames) { name, parser in
                var reader = Reader(parser: parser)
                defer { parser = reader.parser }
                try body(name, &reader)
            }
        }

        /// Reads the next value, which must be an array, handing `body` this reader at each
        /// element in order; `body` reads the element whole.
        public mutating func forEachElement(_ body: (inout Reader) throws -> Void) throws {
            try parser.elements { parser in
                var reader = Reader(parser: parser)
                defer { parser = reader.parser }
                try body(&reader)
            }
        }

        /// Whether the next value is an object.
        public mutating func isAtObject() -> Bool {
            parser.nextByte() == UInt8(ascii: "{")
        }

        /// Whether the next value is an array.
        public mutating func isAtArray() -> Bool {
            parser.nextByte() == UInt8(ascii: "[")
        }
    }

    /// Hands `body` a reader of the one JSON value in `text`, which must have nothing but
    /// white space after what `body` read; throws `Invalid` where the text breaks the rules,
    /// or what `body` throws. Not generic: a generic function called from another module is
    /// not specialized there, and looks its types up at run time at every call.
    public static func reading(_ text: String, _ body: (inout Reader) throws -> Void) throws {
        var text = text
        try text.withUTF8 { utf8 throws in try reading(UnsafeRawBufferPointer(utf8), body) }
    }

    /// `reading(_:_:)` over the bytes of a JSON text.
    public static func reading(_ bytes: UnsafeRawBufferPointer, _ body: (inout Reader) throws -> Void) throws {
        var reader = Reader(parser: Parser(bytes.assumingMemoryBound(to: UInt8.self)))
        try body(&reader)
        reader.parser.skipSpace()
        guard reader.parser.index == bytes.count else { throw reader.parser.invalid("unexpected data after the value") }
    }
}
