import Foundation
import ProcessTestSupport
import Testing

/// A data folder or database the commands can't use gets one sentence on stderr, in the
/// user's language, with no library's own text, a non-zero exit, and nothing changed.
@Suite(.takesTurns) struct DataProblemTests {
    @Test(arguments: [["list"], ["add", "x"], ["import", "-"]])
    func aDataFolderThatIsAFile(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        try Data("a file".utf8).write(to: sandbox.dataRoot)
        let root = sandbox.dataRoot.path
        try await sandbox.expectRejection(
            arguments,
            message: "\(root) is a file, not a folder: move it out of the way, or choose another data folder with --data-dir.",
            input: Data("[]".utf8))
        try await sandbox.expectRejection(
            arguments, message: "「\(root)」是檔案而不是資料夾：請把它移開，或用 --data-dir 指定其他資料夾",
            environment: ["LANG": "zh_TW.UTF-8"], input: Data("[]".utf8))
        #expect(try Data(contentsOf: sandbox.dataRoot) == Data("a file".utf8))
    }

    @Test(arguments: [["list"], ["add", "x"], ["status"]])
    func aDatabaseThatIsNotADatabase(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let file = sandbox.databaseFile()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = Data(String(repeating: "These are my notes, not a database.\n", count: 200).utf8)
        try text.write(to: file)
        try await sandbox.expectRejection(arguments, message: sandbox.damagedSentence())
        try await sandbox.expectRejection(
            arguments, message: """
                「\(file.path)」已損毀：請執行 `ideabox repair`，它會保留所有仍可讀取的靈感，並把損毀的檔案留在一旁；下次同步會補回其餘部分
                """,
            environment: ["LANG": "zh_HK.UTF-8"])
        #expect(try Data(contentsOf: file) == text)
    }

    /// A page of ideas in the middle of the file overwritten: every command that reads it,
    /// `sync` too, says the one sentence, naming the options that chose the profile, and
    /// prints nothing else (not the rows before the damage); `status`, which reads few of
    /// them, looks at every page.
    @Test(arguments: [
        ["export"], ["list", "--all"], ["list", "--all", "--json"],
        ["search", "Idea", "--all"], ["search", "Idea", "--json"], ["status"], ["status", "--json"], ["sync"],
    ])
    func aDamagedPageIsOneSentenceNamingTheRepair(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.importIdeas(profile: "phone")
        _ = try sandbox.damageIdeas(profile: "phone")
        let result = try await sandbox.run(arguments + ["--profile", "phone"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty, "\(result.stdout.prefix(200))")
        #expect(result.stderr == "ideabox: " + sandbox.damagedSentence(profile: "phone", options: " --profile phone") + "\n")
    }

    /// The app reads every page beside its first frame: damage its first screen would not
    /// reach still stops it, with the sentence naming the repair (on a terminal, which
    /// `script` gives it).
    @Test func theAppStopsOnADamagedDatabase() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.importIdeas(profile: "phone")
        _ = try sandbox.damageIdeas(profile: "phone")
        let result = try await IdeaBoxBinary.run(
            executable: URL(fileURLWithPath: "/usr/bin/script"), arguments: ["-qec", "\"$IDEABOX\" --profile phone", "/dev/null"],
            environment: sandbox.environment.merging(["IDEABOX": try IdeaBoxBinary.url().path, "TERM": "xterm-256color"]) { $1 },
            currentDirectory: sandbox.directory, input: nil)
        #expect(result.status != 0)
        let shown = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(shown.contains(sandbox.damagedSentence(profile: "phone", options: " --profile phone")), "\(result)")
    }

    /// `export` makes the whole JSON before it writes a byte: on a damaged database it
    /// writes nothing (not the first half of an array), and a file it was to replace is left
    /// as it was, with no temporary file beside it.
    @Test func exportOfADamagedDatabaseWritesNothing() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.importIdeas()
        _ = try sandbox.damageIdeas()
        try await sandbox.expectRejection(["export"], message: sandbox.damagedSentence())
        let output = try sandbox.file("ideas.json", "the last export\n")
        let before = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted()
        try await sandbox.expectRejection(["export", "--output", output], message: sandbox.damagedSentence())
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "the last export\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted() == before)
    }

    /// Root may write anywhere, so this runs only as another user.
    @Test(.enabled(if: geteuid() != 0)) func aFolderThatCantBeWritten() async throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(at: sandbox.dataRoot, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: sandbox.dataRoot.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sandbox.dataRoot.path) }
        try await sandbox.expectRejection(["add", "x"], message: """
            IdeaBox can't write in \(sandbox.dataRoot.path): make the folder writable, or choose another data folder with --data-dir.
            """)
    }
}
