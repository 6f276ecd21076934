import Foundation
@testable import IdeaBoxConfig
import Testing

/// `TOMLParser`: TOML 1.0 as its specification writes it (the examples are the spec's own),
/// each refusal one error at its line, and no input that stops the process.
@Suite struct TOMLParserTests {
    private func parse(_ text: String) throws -> TOMLTable {
        try TOMLParser.parse(text)
    }

    /// The line a refused text stops being TOML at, or nil if it is TOML.
    private func errorLine(_ text: String) -> Int? {
        do {
            _ = try TOMLParser.parse(text)
            return nil
        } catch {
            return error.line
        }
    }

    @Test func keysAreBareQuotedOrDotted() throws {
        let top = try parse("""
            bare_key-1 = "a"
            "127.0.0.1" = "b"
            'quoted "value"' = "c"
            "ʎǝʞ" = "d"
            site . "google.com" = true
            """)
        #expect(top.keys == ["bare_key-1", "127.0.0.1", "quoted \"value\"", "ʎǝʞ", "site"])
        #expect(top["site"]?.table?["google.com"] == .boolean(true))
        #expect(top.line(of: "ʎǝʞ") == 4)
    }

    @Test func basicStringsReadEveryEscape() throws {
        let top = try parse(#"s = "tab\there \"q\" back\\slash \u00E9 \U0001F600 \b\f\n\r""#)
        #expect(top["s"] == .string("tab\there \"q\" back\\slash é 😀 \u{8}\u{C}\n\r"))
        #expect(try parse("s = 'C:\\Users\\nodejs'")["s"] == .string("C:\\Users\\nodejs"))
    }

    @Test func multiLineStringsTrimTheirFirstLineEndAndJoinBackslashedLines() throws {
        let top = try parse("""
            a = \"\"\"
            Roses are red
            Violets are blue\"\"\"
            b = \"\"\"\\
                   The quick brown \\
                   fox.\\
                   \"\"\"
            c = \"\"\"Here are two quotes: "". Five: \"\"\"\"\"
            d = '''
            The first newline is
            trimmed in raw strings.
               All other whitespace
               is preserved.
            '''
            e = ''''That,' she said, 'is it.''''
            after = true
            """)
        #expect(top["a"] == .string("Roses are red\nViolets are blue"))
        #expect(top["b"] == .string("The quick brown fox."))
        #expect(top["c"] == .string("Here are two quotes: \"\". Five: \"\""))
        #expect(top["d"] == .string("The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n"))
        #expect(top["e"] == .string("'That,' she said, 'is it.'"))
        #expect(top.line(of: "after") == 16, "lines inside strings are counted")
        #expect(try parse("a = \"\"\"x\r\ny\"\"\"\r\nb = 1\r\n")["a"] == .string("x\ny"))
    }

    @Test func numbersAndDatesAreCheckedAndKeptAsWritten() throws {
        let good = [
            "+99", "42", "0", "-17", "1_000", "5_349_221", "0xDEADBEEF", "0xdead_beef", "0o755", "0b11010110",
            "+1.0", "3.1415", "-0.01", "5e+22", "1e06", "-2E-2", "6.626e-34", "224_617.445_991_228", "inf", "+inf", "-nan",
            "1979-05-27T07:32:00Z", "1979-05-27T00:32:00-07:00", "1979-05-27T00:32:00.999999-07:00", "1979-05-27 07:32:00Z",
            "1979-05-27T07:32:00", "1979-05-27", "07:32:00", "00:32:00.999999",
        ]
        for text in good {
            #expect(try parse("v = \(text)")["v"] == .other(text), "\(text)")
        }
        let bad = [
            "1__0", "_1", "1_", "01", "+0x1", "0x", "1.", ".5", "1.e5", "1e", "infinity", "yes", "on", "TRUE",
            "1979-13-01", "1979-05-27T25:00:00", "1979-05-27T07:32", "1979-05-27 x", "07:32", "1979-05-27T07:32:00+7",
        ]
        for text in bad {
            #expect(errorLine("v = \(text)") == 1, "\(text)")
        }
    }

    @Test func arraysSpanLinesWithCommentsAndATrailingComma() throws {
        let top = try parse("""
            a = [
              "red", # a comment
              [1, 2], ['x'],

              { k = "v" },
            ]
            empty = []
            """)
        #expect(top["a"]?.array?.count == 4)
        #expect(top["a"]?.array?.first == .string("red"))
        #expect(top["empty"] == .array([]))
        #expect(top.line(of: "empty") == 7)
        #expect(errorLine("a = [1 2]") == 1)
        #expect(errorLine("a = [1,,2]") == 1)
        #expect(errorLine("a = [\n1,\n") == 3)
    }

    @Test func inlineTablesAreOneLineAndComplete() throws {
        let top = try parse(#"point = { x = 1, y.z = "a" }"#)
        #expect(top["point"]?.table?.keys == ["x", "y"])
        #expect(top["point"]?.table?["y"]?.table?["z"] == .string("a"))
        #expect(errorLine("t = { a = 1,\n b = 2 }") == 1, "no line end inside")
        #expect(errorLine("t = { a = 1, }") == 1, "no comma after the last")
        #expect(errorLine("t = { a = 1, a = 2 }") == 1)
        #expect(errorLine("t = { a = 1 }\n[t]") == 2)
        #expect(errorLine("t = { a = 1 }\n[t.b]") == 2)
        #expect(errorLine("t = { a = {} }\nt.a.b = 1") == 2)
    }

    @Test func tablesAreDefinedOnce() throws {
        let top = try parse("""
            [x.y.z.w]
            a = 1
            [x]
            b = 2
            [fruit]
            apple.color = "red"
            [fruit.apple.texture]
            smooth = true
            """)
        #expect(top["x"]?.table?.keys == ["y", "b"])
        #expect(top["fruit"]?.table?["apple"]?.table?["texture"]?.table?["smooth"] == .boolean(true))
        #expect(errorLine("[a]\nb = 1\n\n[a]\n") == 4)
        #expect(errorLine("[a]\nb = 1\n[a.b]\n") == 3)
        #expect(errorLine("[fruit]\napple.color = 1\n[fruit.apple]\n") == 3)
        #expect(errorLine("a.b = 1\n[a]\n") == 2)
        #expect(errorLine("a = 1\na = 2\n") == 2)
        #expect(errorLine("a = 1\na.b = 2\n") == 2)
        #expect(errorLine("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n") == 4)
    }

    @Test func arraysOfTablesTakeTheirTablesInOrder() throws {
        let top = try parse("""
            [[fruits]]
            name = "apple"
            [fruits.physical]
            color = "red"
            [[fruits.varieties]]
            name = "red delicious"
            [[fruits]]
            name = "banana"
            """)
        guard case .tables(let fruits) = top["fruits"] else { Issue.record("an array of tables"); return }
        #expect(fruits.map { $0["name"] } == [.string("apple"), .string("banana")])
        #expect(fruits[0]["physical"]?.table?["color"] == .string("red"))
        #expect(errorLine("a = []\n[[a]]\n") == 2, "a static array takes no tables")
        #expect(errorLine("[a]\n[[a]]\n") == 2)
    }

    @Test func everyRefusalIsOneErrorAtItsLine() {
        let refused: [(String, Int)] = [
            ("a = \"open", 1), ("a = 'open", 1), ("a = \"\"\"\nnever closed", 2), ("a = '''\nnever", 2),
            ("a = \"\\x41\"", 1), ("a = \"\\uD800\"", 1), ("a = \"\\u00\"", 1), ("a = \"tab\u{1}\"", 1),
            ("\n\nkey", 3), ("key =", 1), ("= 1", 1), ("a = 1 b = 2", 1), ("[a", 1), ("[[a]", 1), ("[]", 1),
            ("[a.]", 1), ("a..b = 1", 1), ("a = 1 # bell \u{7}", 1), ("a = 1\r", 1), ("a = \"\"\"\"\"\"\"\"\"", 1),
            ("a = true1", 1), ("a = \"line\nbreak\"", 1), ("é = 1", 1), ("[é]", 1), ("  [\t#]", 1),
        ]
        for (text, line) in refused {
            #expect(errorLine(text) == line, "\(text.debugDescription)")
        }
    }

    @Test func nestingIsBoundedSoNoInputExhaustsTheStack() {
        let deep = TOMLParser.maximumDepth + 1
        #expect(errorLine("a = " + String(repeating: "[", count: deep) + String(repeating: "]", count: deep)) == 1)
        #expect(errorLine("a = " + String(repeating: "{b=", count: 100_000)) == 1)
        #expect(errorLine("a = " + String(repeating: "[", count: TOMLParser.maximumDepth) + String(repeating: "]", count: TOMLParser.maximumDepth)) == nil)
    }

    @Test func aByteOrderMarkAndCRLFLineEndsAreRead() throws {
        let top = try parse("\u{FEFF}a = 1\r\n# note\r\nb = \"x\"\r\n")
        #expect(top.keys == ["a", "b"])
        #expect(top.line(of: "b") == 3)
    }

    /// Every input `.ci/fuzz` found that stopped a parser: each now an answer, never a crash.
    @Test func theFuzzersFindingsAreAnswered() throws {
        let findings = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/findings/config")
        let names = try FileManager.default.contentsOfDirectory(atPath: findings.path)
        #expect(names.count >= 3)
        for name in names {
            let bytes = try Data(contentsOf: findings.appendingPathComponent(name))
            #expect(errorLine(String(decoding: bytes, as: UTF8.self)) != nil, "\(name) is not TOML")
        }
    }

    @Test func aValueIsWrittenBackAsTOMLForAProblemsSentence() throws {
        let top = try parse(#"v = [1, "a\"b", true, { k = 2 }]"#)
        #expect(top["v"]?.written == #"[1, "a\"b", true, { k = 2 }]"#)
    }
}
