import IdeaBoxFoundation
import Testing

/// `JSONValue.Reader` reads objects member by member to the rules `JSONValue(parsing:)` keeps.
@Suite("JSONValue.Reader")
struct JSONValueReaderTests {
    @Test("Members come in the order written, each value as the whole parser reads it")
    func membersInOrder() throws {
        let text = #" { "b" : [1, "二"], "a": {"x": null, "y": {"z": 2.5}}, "c": "靈感 💡" } "#
        var names: [String] = []
        var values: [String: JSONValue] = [:]
        try JSONValue.reading(text) { reader in
            try reader.forEachMember { name, value in
                names.append(name)
                values[name] = try value.value()
            }
        }
        #expect(names == ["b", "a", "c"])
        #expect(JSONValue.object(values) == (try JSONValue(parsing: text)))
    }

    @Test("Objects inside objects are read member by member too; an empty one hands over nothing")
    func nested() throws {
        var read: [String] = []
        try JSONValue.reading(#"{"f":{"string":"a"},"g":{},"h":{"int64":3}}"#) { reader in
            try reader.forEachMember { field, value in
                try value.forEachMember { kind, value in
                    read.append("\(field).\(kind)=\(try value.value())")
                }
            }
        }
        #expect(read == [#"f.string=string("a")"#, "h.int64=integer(3)"])
    }

    @Test("A name written twice is handed over twice, for the reader to judge")
    func repeatedName() throws {
        var names: [String] = []
        try JSONValue.reading(#"{"a":1,"a":2}"#) { reader in
            try reader.forEachMember { name, value in
                names.append(name)
                _ = try value.value()
            }
        }
        #expect(names == ["a", "a"])
    }

    @Test("Refusing repeated names refuses the second where it is written, as the whole parser does")
    func repeatedNameRefused() throws {
        let text = #"{"a":1, "b":2, "a":3}"#
        var refusal: JSONValue.Invalid?
        do {
            try JSONValue.reading(text) { reader in
                try reader.forEachMember(refusingRepeatedNames: true) { _, value in _ = try value.value() }
            }
        } catch let error as JSONValue.Invalid {
            refusal = error
        }
        #expect(refusal?.kind == .duplicateName)
        #expect(refusal?.offset == 15)
        #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.offset == refusal?.offset)
        }
    }

    @Test("Elements come in order, each as the whole parser reads it; an empty array hands over none")
    func elementsInOrder() throws {
        let text = #" [ {"t": "靈感"}, [1, 2], null , "x" ] "#
        var elements: [JSONValue] = []
        var sawArray = false
        var sawObject = true
        try JSONValue.reading(text) { reader in
            sawArray = reader.isAtArray()
            sawObject = reader.isAtObject()
            try reader.forEachElement { elements.append(try $0.value()) }
        }
        #expect(sawArray && !sawObject)
        #expect(JSONValue.array(elements) == (try JSONValue(parsing: text)))
        var none = 0
        try JSONValue.reading(" [ ] ") { reader in try reader.forEachElement { _ in none += 1 } }
        #expect(none == 0)
    }

    @Test("Elements are read of an array only, to the whole parser's rules", arguments: [
        "{}", "1", "[1,]", "[1 2]", "[1", "[1]]", "[" + String(repeating: "[", count: 80) + String(repeating: "]", count: 80) + "]",
    ])
    func elementsRefused(text: String) {
        #expect(throws: JSONValue.Invalid.self) {
            try JSONValue.reading(text) { reader in
                try reader.forEachElement { _ = try $0.value() }
            }
        }
    }

    @Test("What the whole parser refuses, the reader refuses", arguments: [
        "", "{", #"{"a":1"#, #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":1} x"#, #"{"a":1}{}"#, #"{a:1}"#,
        #"{"a":"\u{1}"}"#, #"{"a":tru}"#, #"{"a":[1,]}"#, #"{"a":"\ud800"}"#, #"{"a":01}"#,
        "{\"a\":" + String(repeating: "[", count: 80) + String(repeating: "]", count: 80) + "}",
    ])
    func refused(text: String) {
        #expect(throws: JSONValue.Invalid.self) {
            try JSONValue.reading(text) { reader in
                try reader.forEachMember { _, value in _ = try value.value() }
            }
        }
        #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: text) }
    }

    @Test("Members are read of an object only", arguments: ["[1]", #""text""#, "null", "12"])
    func notAnObject(text: String) {
        #expect(throws: JSONValue.Invalid.self) {
            try JSONValue.reading(text) { reader in
                try reader.forEachMember { _, value in _ = try value.value() }
            }
        }
    }

    @Test("A member whose value the caller leaves unread is an error, not a misreading")
    func valueLeftUnread() {
        #expect(throws: JSONValue.Invalid.self) {
            try JSONValue.reading(#"{"a":1,"b":2}"#) { reader in
                try reader.forEachMember { _, _ in }
            }
        }
    }

    @Test("What the caller throws comes out as it is")
    func callersError() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try JSONValue.reading(#"{"a":1}"#) { reader in
                try reader.forEachMember { _, _ in throw Refused() }
            }
        }
    }
}
