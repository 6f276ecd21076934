import Foundation
import IdeaModel
import ProcessTestSupport
import Testing

/// Where the data goes: `--data-dir`, `$IDEABOX_HOME`, `$XDG_DATA_HOME/ideabox`,
/// `~/.local/share/ideabox`, and `--profile` / `$IDEABOX_PROFILE` under the root.
@Suite(.takesTurns) struct DataLocationOptionsTests {
    private func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    @Test func dataDirOptionWinsOverEveryVariable() async throws {
        let sandbox = try Sandbox()
        let root = sandbox.directory.appendingPathComponent("explicit root")
        let xdg = sandbox.directory.appendingPathComponent("xdg")
        let id = try await sandbox.add("here", extra: ["--data-dir", root.path])
        try await sandbox.succeed(["list", "--data-dir", root.path], environment: ["XDG_DATA_HOME": xdg.path])
        #expect(exists(sandbox.databaseFile(root: root)))
        #expect(!exists(sandbox.dataRoot))
        #expect(!exists(xdg))
        #expect(try await sandbox.succeed(["list", "--data-dir", root.path]) == "\(id.prefix(8))  [ ] here\n")
    }

    @Test func ideaboxHomeVariable() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("in IDEABOX_HOME")
        #expect(exists(sandbox.databaseFile()))
        #expect(try await sandbox.succeed(["list", "--data-dir", sandbox.dataRoot.path], environment: ["IDEABOX_HOME": nil])
                == "\(id.prefix(8))  [ ] in IDEABOX_HOME\n")
    }

    @Test func ideaboxHomeWinsOverXDG() async throws {
        let sandbox = try Sandbox()
        let xdg = sandbox.directory.appendingPathComponent("xdg")
        try await sandbox.succeed(["add", "in IDEABOX_HOME"], environment: ["XDG_DATA_HOME": xdg.path])
        #expect(exists(sandbox.databaseFile()))
        #expect(!exists(xdg))
    }

    @Test func xdgDataHomeWhenNoIdeaboxHome() async throws {
        let sandbox = try Sandbox()
        let xdg = sandbox.directory.appendingPathComponent("xdg")
        let environment: [String: String?] = ["IDEABOX_HOME": nil, "XDG_DATA_HOME": xdg.path]
        let id = try await sandbox.succeed(["add", "xdg"], environment: environment).trimmingCharacters(in: .newlines)
        #expect(exists(sandbox.databaseFile(root: xdg.appendingPathComponent("ideabox"))))
        #expect(!exists(sandbox.dataRoot))
        #expect(!exists(sandbox.home.appendingPathComponent(".local")))
        #expect(try await sandbox.succeed(["list"], environment: environment) == "\(id.prefix(8))  [ ] xdg\n")
    }

    @Test(arguments: [nil, ""] as [String?])
    func homeWhenNeitherIsSet(xdg: String?) async throws {
        let sandbox = try Sandbox()
        let environment: [String: String?] = ["IDEABOX_HOME": nil, "XDG_DATA_HOME": xdg]
        let id = try await sandbox.succeed(["add", "home"], environment: environment).trimmingCharacters(in: .newlines)
        #expect(exists(sandbox.databaseFile(root: sandbox.home.appendingPathComponent(".local/share/ideabox"))))
        #expect(!exists(sandbox.dataRoot))
        #expect(try await sandbox.succeed(["list"], environment: environment) == "\(id.prefix(8))  [ ] home\n")
    }

    @Test func noHomeAtAllIsRefused() async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(
            ["list"], message: "No data directory: pass --data-dir, or set IDEABOX_HOME or HOME.",
            environment: ["IDEABOX_HOME": nil, "HOME": nil])
    }

    @Test func relativeDataDirIsUnderTheWorkingDirectory() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(["add", "relative", "--data-dir", "rel/root"])
        #expect(exists(sandbox.databaseFile(root: sandbox.directory.appendingPathComponent("rel/root"))))
    }

    @Test func profileOptionAndVariable() async throws {
        let sandbox = try Sandbox()
        let work = try await sandbox.add("work idea", extra: ["--profile", "work"])
        #expect(exists(sandbox.databaseFile(profile: "work")))
        #expect(!exists(sandbox.databaseFile(profile: "default")))

        let line = "\(work.prefix(8))  [ ] work idea\n"
        #expect(try await sandbox.succeed(["list"], environment: ["IDEABOX_PROFILE": "work"]) == line)
        #expect(try await sandbox.succeed(["list", "--profile", "work"], environment: ["IDEABOX_PROFILE": "home"]) == line)
        #expect(!exists(sandbox.databaseFile(profile: "home")))
        #expect(try await sandbox.run(["list"]).status == 1)
        #expect(!exists(sandbox.databaseFile(profile: "default")))
    }

    @Test func profilesAreIsolated() async throws {
        let sandbox = try Sandbox()
        let phone = try await sandbox.add("phone only", extra: ["--profile", "phone"])
        let laptop = try await sandbox.add("laptop only", extra: ["--profile", "laptop"])
        #expect(try await sandbox.succeed(["list", "--profile", "phone"]) == "\(phone.prefix(8))  [ ] phone only\n")
        #expect(try await sandbox.succeed(["list", "--profile", "laptop"]) == "\(laptop.prefix(8))  [ ] laptop only\n")
        try await sandbox.expectRejection(["show", phone, "--profile", "laptop"], message: "No idea has the id \"\(phone)\".")
        try await sandbox.expectRejection(["rm", laptop, "--profile", "phone"], message: "No idea has the id \"\(laptop)\".")
        #expect(try await sandbox.succeed(["search", "only", "--profile", "phone"]) == "\(phone.prefix(8))  [ ] phone only\n")

        let phoneDevice = try await sandbox.succeed(["show", phone, "--profile", "phone", "--json"])
        let laptopDevice = try await sandbox.succeed(["show", laptop, "--profile", "laptop", "--json"])
        let phoneIdea = try JSONDecoder().decode(Idea.self, from: Data(phoneDevice.utf8))
        let laptopIdea = try JSONDecoder().decode(Idea.self, from: Data(laptopDevice.utf8))
        #expect(phoneIdea.deviceId != laptopIdea.deviceId)
    }

    @Test(arguments: ["../escape", ".hidden", "a/b", "名字", String(repeating: "p", count: 65), "with space"])
    func invalidProfileNamesAreRefused(name: String) async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(
            ["add", "x", "--profile", name],
            message: "\"\(name)\" is not a valid profile name: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'.")
        try await sandbox.expectRejection(
            ["list"],
            message: "\"\(name)\" is not a valid profile name: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'.",
            environment: ["IDEABOX_PROFILE": name])
        #expect(!exists(sandbox.dataRoot))
    }

    /// A command that only reads creates nothing: a mistyped `--data-dir` or `--profile` says
    /// there are no ideas there (exit 1, nothing on standard output, even with `--json`), rather
    /// than seeding a new database whose samples look as if every idea had vanished.
    @Test(arguments: [
        ["list"], ["list", "--json"], ["search", "tea"], ["show", "1dea0001"], ["export"], ["history", "1dea0001"],
        ["status"], ["status", "--json"], ["log"],
    ])
    func aCommandThatOnlyReadsCreatesNoDataWhereThereIsNone(command: [String]) async throws {
        let sandbox = try Sandbox(samples: true)
        _ = try await sandbox.add("The real idea")
        let mistyped = sandbox.directory.appendingPathComponent("ideabx")
        let advice = "IdeaBox has stored nothing there (check --data-dir, IDEABOX_HOME and --profile; "
            + "`ideabox add` or the app would start a new collection there)."
        try await sandbox.expectRejection(command + ["--data-dir", mistyped.path], message: "There are no ideas at \(mistyped.path): \(advice)")
        #expect(!exists(mistyped))
        try await sandbox.expectRejection(
            command + ["--profile", "wrok"], message: "There are no ideas at \(sandbox.dataRoot.path) for profile wrok: \(advice)")
        #expect(!exists(sandbox.databaseFile(profile: "wrok").deletingLastPathComponent()))
        try await sandbox.expectRejection(
            command, message: """
                \(mistyped.path) 沒有任何靈感：IdeaBox 沒有在那裡儲存過資料\
                （請檢查 --data-dir、IDEABOX_HOME 與 --profile；`ideabox add` 或全螢幕介面會在那裡建立新的資料）
                """,
            environment: ["IDEABOX_HOME": mistyped.path, "LANG": "zh_TW.UTF-8"])
        #expect(!exists(mistyped))
        #expect(try await sandbox.succeed(["list"]).contains("The real idea"))
    }

    @Test func aCommandThatWritesStillStartsANewCollectionWithTheSamples() async throws {
        let sandbox = try Sandbox(samples: true)
        let fresh = sandbox.directory.appendingPathComponent("fresh")
        // `add` is the exception: a person who starts from the shell starts with an empty list.
        try await sandbox.succeed(["undone", "1dea0001", "--data-dir", fresh.path])
        #expect(try await sandbox.succeed(["list", "--data-dir", fresh.path]) == SampleIdeasTests.englishList)
    }

    @Test func longestValidProfileName() async throws {
        let sandbox = try Sandbox()
        let name = "a.b_c-" + String(repeating: "9", count: 58)
        try await sandbox.succeed(["add", "longest", "--profile", name])
        #expect(exists(sandbox.databaseFile(profile: name)))
    }
}
