import Foundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox export` and `ideabox import FILE`.
@Suite(.takesTurns) struct ExportImportTests {
    /// Fills the sandbox with ideas that exercise every field, and returns the export.
    private func fill(_ sandbox: Sandbox) async throws -> String {
        _ = try await sandbox.add("Plain")
        _ = try await sandbox.add("靈感：寫一個終端機 App", description: "第一行\n第二行\n\n\t縮排的第四行", done: true)
        let emoji = try await sandbox.add("👩‍👩‍👧‍👦 family 👍🏽🇹🇼", description: "\"quotes\", back\\slash, /slash")
        try await sandbox.succeed(["edit", emoji, "--title", "👩‍👩‍👧‍👦 family 👍🏽🇹🇼 edited"])
        try await sandbox.succeed(["done", emoji])
        let undone = try await sandbox.add("Done then undone", done: true)
        try await sandbox.succeed(["undone", undone])
        _ = try await sandbox.add(String(repeating: "長", count: 256), description: String(repeating: "描", count: 4096))
        let removed = try await sandbox.add("removed before export")
        try await sandbox.succeed(["rm", removed])
        return try await sandbox.succeed(["export"])
    }

    /// An export of format 2, as far as these tests read it.
    private struct Export: Decodable {
        var formatVersion: Int
        var ideas: [Idea]
    }

    @Test func roundTripsEveryFieldExactly() async throws {
        let source = try Sandbox()
        let exported = try await fill(source)
        let export = try JSONDecoder().decode(Export.self, from: Data(exported.utf8))
        #expect(export.formatVersion == 2)
        #expect(export.ideas.count == 5)
        #expect(await export.ideas == (try source.ideas()))

        let file = try source.file("ideas.json", exported)
        let target = try Sandbox(samples: true)
        #expect(try await target.succeed(["import", file]) == "Imported 5 new, 0 updated, 0 unchanged.\n")
        #expect(try await target.succeed(["export"]) == exported)
        #expect(try await target.succeed(["list"]) == (try source.succeed(["list"])))
    }

    /// A file of format 1 (an array of ideas, without stamps) imports, each field read as
    /// written at the idea's `updatedAt`: the next export says so.
    @Test func keepsLastSyncedAtAndMillisecondsAsGiven() async throws {
        let sandbox = try Sandbox()
        let export = """
            [
              {
                "createdAt" : "2024-02-29T23:59:59.001Z",
                "description" : "synced once",
                "deviceId" : "another-device",
                "id" : "abcdef01-2345-4678-9abc-def012345678",
                "isCompleted" : true,
                "lastSyncedAt" : "2024-03-01T00:00:00.999Z",
                "title" : "From elsewhere",
                "updatedAt" : "2024-03-01T00:00:00.500Z",
                "version" : 12
              }
            ]

            """
        let file = try sandbox.file("one.json", export)
        #expect(try await sandbox.succeed(["import", file]) == "Imported 1 new, 0 updated, 0 unchanged.\n")
        #expect(try await sandbox.succeed(["export"]) == """
            {
              "formatVersion" : 2,
              "ideas" : [
                {
                  "createdAt" : "2024-02-29T23:59:59.001Z",
                  "description" : "synced once",
                  "deviceId" : "another-device",
                  "fieldStamps" : {
                    "description" : {
                      "deviceId" : "another-device",
                      "updatedAt" : "2024-03-01T00:00:00.500Z"
                    },
                    "isCompleted" : {
                      "deviceId" : "another-device",
                      "updatedAt" : "2024-03-01T00:00:00.500Z"
                    },
                    "title" : {
                      "deviceId" : "another-device",
                      "updatedAt" : "2024-03-01T00:00:00.500Z"
                    }
                  },
                  "id" : "abcdef01-2345-4678-9abc-def012345678",
                  "isCompleted" : true,
                  "lastSyncedAt" : "2024-03-01T00:00:00.999Z",
                  "title" : "From elsewhere",
                  "updatedAt" : "2024-03-01T00:00:00.500Z",
                  "version" : 12
                }
              ]
            }

            """)
        #expect(try await sandbox.succeed(["show", "abcdef01"]) == """
            id: abcdef01-2345-4678-9abc-def012345678
            title: From elsewhere
            completed: yes
            created: 2024-02-29T23:59:59.001Z
            updated: 2024-03-01T00:00:00.500Z
            device: another device
            version: 12
            last synced: 2024-03-01T00:00:00.999Z
            description:
              synced once

            """)
    }

    @Test func importingTwiceIsIdempotent() async throws {
        let source = try Sandbox()
        let exported = try await fill(source)
        let file = try source.file("ideas.json", exported)
        let target = try Sandbox()
        try await target.succeed(["import", file])
        #expect(try await target.succeed(["import", file]) == "Imported 0 new, 0 updated, 5 unchanged.\n")
        #expect(try await target.succeed(["export"]) == exported)
        #expect(try await source.succeed(["import", file]) == "Imported 0 new, 0 updated, 5 unchanged.\n")
        #expect(try await source.succeed(["export"]) == exported)
    }

    @Test func summaryIsInTraditionalChineseUnderZhTW() async throws {
        let source = try Sandbox()
        let file = try await source.file("ideas.json", try fill(source))
        let target = try Sandbox(language: "zh_TW.UTF-8")
        #expect(try await target.succeed(["import", file]) == "已匯入：新增 5 筆，更新 0 筆，未變更 0 筆\n")
    }

    @Test func standardInputWithDash() async throws {
        let source = try Sandbox()
        let exported = try await fill(source)
        let target = try Sandbox()
        #expect(try await target.succeed(["import", "-"], input: Data(exported.utf8)) == "Imported 5 new, 0 updated, 0 unchanged.\n")
        #expect(try await target.succeed(["export"]) == exported)
    }

    @Test func aNewerVersionReplacesAnOlderOneAndAnOlderOneDoesNot() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Version A")
        let old = try await sandbox.file("old.json", try sandbox.succeed(["export"]))
        try await sandbox.succeed(["edit", id, "--title", "Version B"])
        let new = try await sandbox.file("new.json", try sandbox.succeed(["export"]))

        #expect(try await sandbox.succeed(["import", old]) == "Imported 0 new, 0 updated, 1 unchanged.\n")
        #expect(try await sandbox.idea(id).title == "Version B")

        let other = try Sandbox()
        try await other.succeed(["import", old])
        #expect(try await other.succeed(["import", new]) == "Imported 0 new, 1 updated, 0 unchanged.\n")
        #expect(try await other.succeed(["export"]) == (try sandbox.succeed(["export"])))
    }

    @Test func anEmptyArrayImportsNothing() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("empty.json", "[]")
        #expect(try await sandbox.succeed(["import", file]) == "Imported 0 new, 0 updated, 0 unchanged.\n")
        #expect(try await sandbox.succeed(["list"]) == "")
    }

    @Test(arguments: ["{ not json", "", "{\"id\": 1}", "[1, 2]", "[{\"title\": \"no id\"}]"])
    func brokenJSONIsRefusedAndImportsNothing(text: String) async throws {
        let sandbox = try Sandbox()
        let existing = try await sandbox.add("existing")
        let before = try await sandbox.succeed(["export"])
        let file = try sandbox.file("broken.json", text)
        let result = try await sandbox.run(["import", file])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("ideabox: \(file) is not "))
        #expect(result.stderr.contains(" Nothing was imported."))
        #expect(try await sandbox.succeed(["export"]) == before)
        #expect(try await sandbox.succeed(["list"]) == "\(existing.prefix(8))  [ ] existing\n")
    }

    @Test func aMissingFieldIsNamedWithItsPosition() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("missing.json", """
            [{"id": "abcdef01-2345-4678-9abc-def012345678", "title": "ok", "createdAt": "2024-01-01T00:00:00.000Z", "deviceId": "d"},
             {"id": "abcdef02-2345-4678-9abc-def012345678", "createdAt": "2024-01-01T00:00:00.000Z", "deviceId": "d"}]
            """)
        try await sandbox.expectRejection(
            ["import", file],
            message: "\(file) is not a valid IdeaBox export (1 problem). Nothing was imported.\n  idea 2, title: missing")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }

    @Test(arguments: [
        ("{ not json", 1, 3), ("", 1, 1), ("[\n  {\"title\": \"靈感\",\n   \"id\": x}]", 3, 10), ("[1, 2", 1, 6),
        ("[{\"title\": \"a\"} {}]", 1, 17), ("[\"a\\q\"]", 1, 5),
    ])
    func brokenJSONNamesTheLineAndColumn(text: String, line: Int, column: Int) async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("broken.json", text)
        try await sandbox.expectRejection(
            ["import", file], message: "\(file) is not valid JSON: line \(line), column \(column). Nothing was imported.")
        try await sandbox.expectRejection(
            ["import", file], message: "\(file) 不是有效的 JSON：第 \(line) 行第 \(column) 欄；沒有匯入任何資料",
            environment: ["LANG": "zh_TW.UTF-8"])
    }

    /// An import is I-JSON (RFC 7493): what JSON's grammar lets through but I-JSON does not is
    /// refused like a syntax error, by line and column, with the rule it breaks; nothing is
    /// imported (issue 61).
    @Test(arguments: [
        (Array(#"[{"id": "abcdef01-2345-4678-9abc-def012345678", "title": "a", "title": "b"}]"#.utf8), 1, 63,
         " (a name appears twice in one object)", "（同一個物件裡有重複的名稱）"),
        (Array("[\n {\"title\": \"靈感".utf8) + [0xFF] + Array("\"}]".utf8), 2, 15, " (the text is not UTF-8)", "（文字不是 UTF-8）"),
        (Array(#"[{"title": "\ud83d"}]"#.utf8), 1, 19,
         " (a \\u escape names half a character, a lone surrogate)", "（\\u 跳脫只寫了半個字元，即孤立的代理項）"),
    ])
    func whatIJSONRefusesIsNamedByLineAndColumn(bytes: [UInt8], line: Int, column: Int, english: String, chinese: String) async throws {
        let sandbox = try Sandbox()
        let existing = try await sandbox.succeed(["add", "existing"]).trimmingCharacters(in: .newlines)
        let before = try await sandbox.succeed(["export"])
        let file = sandbox.directory.appendingPathComponent("i-json.json").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try await sandbox.expectRejection(
            ["import", file], message: "\(file) is not valid JSON: line \(line), column \(column)\(english). Nothing was imported.")
        try await sandbox.expectRejection(
            ["import", file], message: "\(file) 不是有效的 JSON：第 \(line) 行第 \(column) 欄\(chinese)；沒有匯入任何資料",
            environment: ["LANG": "zh_TW.UTF-8"])
        #expect(try await sandbox.succeed(["export"]) == before)
        #expect(try await sandbox.succeed(["list"]) == "\(existing.prefix(8))  [ ] existing\n")
    }

    @Test(arguments: ["{\"id\": 1}", "{\"formatVersion\": 2}", "{\"formatVersion\": 2, \"ideas\": {}}", "7"])
    func jsonThatIsNotAnExportIsRefused(text: String) async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("object.json", text)
        try await sandbox.expectRejection(["import", file], message: """
            \(file) is not a valid IdeaBox export: it must be a JSON object of "formatVersion" and "ideas", as \
            `ideabox export` writes, or an array of ideas. Nothing was imported.
            """)
    }

    @Test func aFormatNewerThanThisIdeaBoxIsRefused() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("future.json", "{\"formatVersion\": 3, \"ideas\": []}")
        try await sandbox.expectRejection(["import", file], message: """
            \(file) is an export of format 3, from a newer IdeaBox; this one reads formats 1 to 2. Nothing was imported.
            """)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }

    @Test func everyProblemIsListedAtOnceWithTheIdeasNumberAndField() async throws {
        let sandbox = try Sandbox()
        let existing = try await sandbox.add("existing")
        let before = try await sandbox.succeed(["export"])
        let file = try sandbox.file("problems.json", """
            [\(ideaJSON(1)), \(ideaJSON(2, ["title": "\"  \""])), 7, \(ideaJSON(4, ["createdAt": "\"yesterday\""])),
             \(ideaJSON(5, ["isCompleted": "\"yes\""])), \(ideaJSON(1)), {"id": "abcdef07-2345-4678-9abc-def012345678"},
             \(ideaJSON(8, ["version": "-1"]))]
            """)
        try await sandbox.expectRejection(["import", file], message: """
            \(file) is not a valid IdeaBox export (9 problems). Nothing was imported.
              idea 2, title: The title can't be empty.
              idea 3: not a JSON object { … }
              idea 4, createdAt: must be a UTC time such as 2026-11-20T08:15:30.123Z
              idea 5, isCompleted: must be true or false
              idea 6, id: the same id as idea 1
              idea 7, title: missing
              idea 7, createdAt: missing
              idea 7, deviceId: missing
              idea 8, version: version can't be negative.
            """)
        try await sandbox.expectRejection(["import", file], message: """
            \(file) 不是有效的 IdeaBox 匯出檔（9 個問題）；沒有匯入任何資料
              第 2 筆靈感，title：靈感標題不能為空
              第 3 筆靈感：不是 JSON 物件 { … }
              第 4 筆靈感，createdAt：必須是 UTC 時間，例如 2026-11-20T08:15:30.123Z
              第 5 筆靈感，isCompleted：必須是 true 或 false
              第 6 筆靈感，id：與第 1 筆靈感的識別碼相同
              第 7 筆靈感，title：缺少此欄位
              第 7 筆靈感，createdAt：缺少此欄位
              第 7 筆靈感，deviceId：缺少此欄位
              第 8 筆靈感，version：版本號不能為負數
            """, environment: ["LANG": "zh_TW.UTF-8"])
        #expect(try await sandbox.succeed(["export"]) == before)
        #expect(try await sandbox.succeed(["list"]) == "\(existing.prefix(8))  [ ] existing\n")
    }

    @Test func atMostTwentyProblemsAreListedAndTheRestCounted() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("many.json", "[" + Array(repeating: "{}", count: 23).joined(separator: ", ") + "]")
        let lines = (1...5).flatMap { idea in
            ["id", "title", "createdAt", "deviceId"].map { "\n  idea \(idea), \($0): missing" }
        }.joined()
        try await sandbox.expectRejection(
            ["import", file],
            message: "\(file) is not a valid IdeaBox export (92 problems). Nothing was imported.\(lines)\n  … and 72 more")
    }

    @Test func everyProblemOfOneIdeaIsListedNotOnlyTheFirst() async throws {
        let sandbox = try Sandbox()
        let existing = try await sandbox.add("existing")
        let before = try await sandbox.succeed(["export"])
        let long = Expected.quoted(String(repeating: "長", count: 300))
        let file = try sandbox.file("several.json", """
            [{"title": "  ", "createdAt": "yesterday", "deviceId": "device"},
             \(ideaJSON(2, ["title": long, "updatedAt": "\"2023-12-31T00:00:00.000Z\"", "deviceId": "\"\"", "version": "-1"])),
             \(ideaJSON(2, ["id": "\"not-a-uuid\"", "isCompleted": "\"yes\"", "lastSyncedAt": "\"now\""]))]
            """)
        try await sandbox.expectRejection(["import", file], message: """
            \(file) is not a valid IdeaBox export (10 problems). Nothing was imported.
              idea 1, id: missing
              idea 1, title: The title can't be empty.
              idea 1, createdAt: must be a UTC time such as 2026-11-20T08:15:30.123Z
              idea 2, title: The title is 300 characters long; the limit is 256.
              idea 2, updatedAt: updatedAt can't be earlier than createdAt.
              idea 2, deviceId: deviceId can't be empty.
              idea 2, version: version can't be negative.
              idea 3, id: must be a UUID such as 6f1c2b3a-4d5e-4f60-8172-839405a6b7c8
              idea 3, isCompleted: must be true or false
              idea 3, lastSyncedAt: must be a UTC time such as 2026-11-20T08:15:30.123Z
            """)
        #expect(try await sandbox.succeed(["export"]) == before)
        #expect(try await sandbox.succeed(["list"]) == "\(existing.prefix(8))  [ ] existing\n")
    }

    @Test func aMissingFileIsRefused() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.directory.appendingPathComponent("nowhere.json").path
        let result = try await sandbox.run(["import", path])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("ideabox: Can't read \(path): "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }

    /// A valid idea in export form, with fields replaced by `changes`.
    private func ideaJSON(_ number: Int, _ changes: [String: String] = [:]) -> String {
        var fields = [
            "id": "\"abcdef0\(number)-2345-4678-9abc-def012345678\"",
            "title": "\"Idea \(number)\"",
            "description": "\"\"",
            "isCompleted": "false",
            "createdAt": "\"2024-01-01T00:00:00.000Z\"",
            "updatedAt": "\"2024-01-02T00:00:00.000Z\"",
            "deviceId": "\"device\"",
            "version": "0",
            "lastSyncedAt": "null",
        ]
        fields.merge(changes) { $1 }
        return "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }

    @Test(arguments: [
        (["title": Expected.quoted(String(repeating: "靈", count: 257))],
         "The title is 257 characters long; the limit is 256."),
        (["title": "\"  \""], "The title can't be empty."),
        (["title": "\"a\\nb\""], "The title must be one line, without newlines or control characters."),
        (["description": Expected.quoted(String(repeating: "x", count: 4097))],
         "The description is 4097 characters long; the limit is 4096."),
        (["updatedAt": "\"2023-12-31T23:59:59.999Z\""], "updatedAt can't be earlier than createdAt."),
        (["version": "-1"], "version can't be negative."),
        (["deviceId": "\" \""], "deviceId can't be empty."),
    ])
    func oneInvalidIdeaImportsNothing(changes: [String: String], reason: String) async throws {
        let field = try #require(changes.keys.first)
        let sandbox = try Sandbox()
        let existing = try await sandbox.add("existing")
        let before = try await sandbox.succeed(["export"])
        let file = try sandbox.file("invalid.json", "[\(ideaJSON(1)), \(ideaJSON(2, changes)), \(ideaJSON(3))]")
        try await sandbox.expectRejection(
            ["import", file],
            message: "\(file) is not a valid IdeaBox export (1 problem). Nothing was imported.\n  idea 2, \(field): \(reason)")
        #expect(try await sandbox.succeed(["export"]) == before)
        #expect(try await sandbox.succeed(["list"]) == "\(existing.prefix(8))  [ ] existing\n")
    }

    @Test func anInvalidIdeaIsReportedInTraditionalChinese() async throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        let file = try sandbox.file("invalid.json", "[\(ideaJSON(1, ["updatedAt": "\"2023-01-01T00:00:00.000Z\""]))]")
        try await sandbox.expectRejection(
            ["import", file],
            message: "\(file) 不是有效的 IdeaBox 匯出檔（1 個問題）；沒有匯入任何資料\n  第 1 筆靈感，updatedAt：更新時間不能早於建立時間")
    }

    @Test func aRepeatedIdImportsNothing() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("twice.json", "[\(ideaJSON(1)), \(ideaJSON(2)), \(ideaJSON(1, ["title": "\"again\""]))]")
        try await sandbox.expectRejection(
            ["import", file],
            message: "\(file) is not a valid IdeaBox export (1 problem). Nothing was imported.\n  idea 3, id: the same id as idea 1")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }

    @Test func importedTitlesAreNormalizedLikeTypedOnes() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.file("spaces.json", "[\(ideaJSON(1, ["title": "\"  padded  \"", "description": "\"a\\r\\nb\""]))]")
        try await sandbox.succeed(["import", file])
        let idea = try await sandbox.idea("abcdef01")
        #expect(idea.title == "padded" && idea.description == "a\nb")
    }

    /// `--output FILE` writes what standard output would get; a new file is the user's
    /// alone, a file that was there is replaced whole and keeps its permissions.
    @Test func exportToAFileWritesWhatStandardOutputGets() async throws {
        let sandbox = try Sandbox()
        let exported = try await fill(sandbox)
        let new = sandbox.directory.appendingPathComponent("new.json").path
        #expect(try await sandbox.succeed(["export", "--output", new]) == "")
        #expect(try String(contentsOfFile: new, encoding: .utf8) == exported)
        #expect(try FileManager.default.attributesOfItem(atPath: new)[.posixPermissions] as? Int == 0o600)

        let existing = try sandbox.file("existing.json", "an older export, longer than the new one will be" + String(repeating: "!", count: 10_000))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: existing)
        #expect(try await sandbox.succeed(["export", "-o", existing]) == "")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == exported)
        #expect(try FileManager.default.attributesOfItem(atPath: existing)[.posixPermissions] as? Int == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func exportToAFolderThatIsMissingSaysSo() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("An idea")
        let path = sandbox.directory.appendingPathComponent("missing/ideas.json").path
        try await sandbox.expectRejection(["export", "--output", path], message: "Can't write \(path): there is no such folder.")
    }

    // MARK: Merging by the file's stamps (issue 57, part 4)

    /// The issue's sequence: b's export carries the stamps of its fields, so a's import takes
    /// b's newer title and keeps a's newer description, and both devices end with both.
    @Test func anImportNeverBringsBackAnOlderField() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Plan", on: "a")
        try await sandbox.succeed(on: "a", ["edit", id, "--description", "first notes"])
        try await sandbox.sync("a")
        try await sandbox.sync("b")
        try await sandbox.succeed(on: "a", ["edit", id, "--description", "a's newer notes"])
        try await sandbox.succeed(on: "b", ["edit", id, "--title", "b's title"])
        let file = sandbox.directory.appendingPathComponent("b.json").path
        try await sandbox.succeed(on: "b", ["export", "--output", file])

        #expect(try await sandbox.succeed(on: "a", ["import", file]) == "Imported 0 new, 1 updated, 0 unchanged.\n")
        try await sandbox.sync("a")
        try await sandbox.sync("b")
        try await sandbox.sync("a")
        for profile in ["a", "b"] {
            let idea = try #require(try await sandbox.ideas(on: profile).first)
            #expect(idea.title == "b's title" && idea.description == "a's newer notes", "on \(profile)")
        }
        #expect(try await sandbox.syncedState(of: "a") == sandbox.syncedState(of: "b"))
    }

    /// An export with `title` changed by hand: the file gives the title the stamp this device
    /// holds for it, with another value.
    private func handEditedExport(_ sandbox: Sandbox) async throws -> (id: String, file: String) {
        let id = try await sandbox.add("Plan", description: "notes")
        let exported = try await sandbox.succeed(["export"])
        #expect(exported.contains("\"title\" : \"Plan\""))
        let file = try sandbox.file("edited.json", exported.replacingOccurrences(of: "\"title\" : \"Plan\"", with: "\"title\" : \"Plan B\""))
        return (id, file)
    }

    @Test func aTitleEditedByHandInAnExportIsWrittenAsANewEditAndNamed() async throws {
        let sandbox = try Sandbox()
        let (id, file) = try await handEditedExport(sandbox)
        let before = try await sandbox.idea(id)
        #expect(try await sandbox.succeed(["import", file]) == """
            Imported 0 new, 1 updated, 0 unchanged.
            Edited by hand in the file, written as new edits:
              \(id.prefix(8))  title  (Plan B)

            """)
        let after = try await sandbox.idea(id)
        #expect(after.title == "Plan B" && after.description == "notes")
        #expect(after.version == before.version + 1 && after.updatedAt > before.updatedAt, "a new edit of this device")
        #expect(try await sandbox.succeed(["history", id]).contains("Plan\n"), "the title it replaced is kept")
        #expect(try await sandbox.succeed(["import", file]) == "Imported 0 new, 0 updated, 1 unchanged.\n")
    }

    @Test func aHandEditIsOnlyNamedWithSkipHandEdits() async throws {
        let sandbox = try Sandbox()
        let (id, file) = try await handEditedExport(sandbox)
        let before = try await sandbox.succeed(["export"])
        #expect(try await sandbox.succeed(["import", file, "--skip-hand-edits"]) == """
            Imported 0 new, 0 updated, 1 unchanged.
            Edited by hand in the file, not written (--skip-hand-edits):
              \(id.prefix(8))  title  (Plan B)

            """)
        #expect(try await sandbox.succeed(["export"]) == before)
        let chinese = try await sandbox.succeed(["import", file, "--skip-hand-edits"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese == """
            已匯入：新增 0 筆，更新 0 筆，未變更 1 筆
            檔案中手動修改的值，未寫入（--skip-hand-edits）：
              \(id.prefix(8))  標題  (Plan B)

            """)
    }

    @Test func aDryRunSaysWhatWouldChangeAndWritesNothing() async throws {
        let sandbox = try Sandbox()
        let shared = try await sandbox.add("Plan", on: "a")
        try await sandbox.sync("a")
        try await sandbox.sync("b")
        try await sandbox.succeed(on: "b", ["edit", shared, "--description", "b's notes"])
        let added = try await sandbox.add("Only on b", on: "b")
        // b's export, its title of the shared idea changed by hand.
        let exported = try await sandbox.succeed(on: "b", ["export"])
            .replacingOccurrences(of: "\"title\" : \"Plan\"", with: "\"title\" : \"Plan B\"")
        let file = try sandbox.file("b.json", exported)
        let before = try await sandbox.succeed(on: "a", ["export"])
        let pending = try await sandbox.status("a").pendingCount

        #expect(try await sandbox.succeed(on: "a", ["import", file, "--dry-run"]) == """
            Would import 1 new, 1 updated, 0 unchanged; nothing was written.
              new      \(added.prefix(8))  Only on b
              update   \(shared.prefix(8))  description  (Plan B)
              by hand  \(shared.prefix(8))  title  (Plan B)

            """)
        #expect(try await sandbox.succeed(on: "a", ["import", file, "--dry-run", "--skip-hand-edits"]).contains(
            "  by hand  \(shared.prefix(8))  title  (Plan B)  skipped\n"))
        #expect(try await sandbox.succeed(on: "a", ["export"]) == before)
        #expect(try await sandbox.status("a").pendingCount == pending)

        #expect(try await sandbox.succeed(on: "new", ["import", file, "--dry-run"]) == """
            Would import 2 new, 0 updated, 0 unchanged; nothing was written.
              new      \(added.prefix(8))  Only on b
              new      \(shared.prefix(8))  Plan B

            """)
        #expect(!FileManager.default.fileExists(atPath: sandbox.databaseFile(profile: "new").deletingLastPathComponent().path))
    }

    /// A file of format 1 (`list --json` prints the same array) has no stamps: a value it holds
    /// that differs from this device's is a hand edit unless this device wrote its own later.
    @Test func aFileWithoutStampsStillImports() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Plan")
        let old = try await sandbox.succeed(["list", "--json"])
        #expect(try await sandbox.succeed(["import", try sandbox.file("same.json", old)]) == "Imported 0 new, 0 updated, 1 unchanged.\n")
        let edited = try sandbox.file("edited.json", old.replacingOccurrences(of: "\"Plan\"", with: "\"Plan B\""))
        #expect(try await sandbox.succeed(["import", edited]) == """
            Imported 0 new, 1 updated, 0 unchanged.
            Edited by hand in the file, written as new edits:
              \(id.prefix(8))  title  (Plan B)

            """)
        #expect(try await sandbox.idea(id).title == "Plan B")
        #expect(try await sandbox.succeed(["import", try sandbox.file("old.json", old)]) == "Imported 0 new, 0 updated, 1 unchanged.\n")
        #expect(try await sandbox.idea(id).title == "Plan B", "this device's title is newer than the file's")
    }
}
