import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ProcessTestSupport
import Testing

/// Devices on different data roots (different machines, as far as they know) that share
/// nothing but an `ideabox serve` process on 127.0.0.1 (issue 8).
@Suite("Sync through ideabox serve", .takesTurns)
struct ServedSyncTests {
    /// Two terminals signed in to one account see each other's add, completion, delete and
    /// offline edit with no key pressed; a third, on another account, sees none of it. Each
    /// holds a long poll (`live`), and idle, none sends anything else for 30 s.
    @Test func twoMachinesOneAccountAndAStranger() async throws {
        let server = try ServeProcess()
        defer { server.close() }
        let aliceToken = try await server.addAccount("alice")
        let bobToken = try await server.addAccount("bob")
        try await server.start()
        let url = try server.url
        func signIn(_ account: String, _ token: String) -> [[String]] {
            [["account", "sign-in", account, "--server", url, "--token", token]]
        }
        let a = try await TmuxSession(before: signIn("alice", aliceToken))
        defer { a.close() }
        let b = try await TmuxSession(before: signIn("alice", aliceToken))
        defer { b.close() }
        let stranger = try await TmuxSession(before: signIn("bob", bobToken))
        defer { stranger.close() }
        #expect(a.dataRoot != b.dataRoot)
        for session in [a, b, stranger] {
            try await session.waitFor("an empty, synced app") { screen in
                screen.contains("All Ideas (0)") && screen.statusBar.contains("Synced")
            }
        }

        let title = "在機器 A 新增 over HTTP"
        try await a.press("n")
        try await a.waitFor("New idea")
        try await a.type(title)
        try await a.waitFor(title)
        try await a.press("C-s")
        try await b.waitFor("A's new idea in B") { screen in
            screen.contains("All Ideas (1)") && screen.line(2).contains("[ ] \(title)")
        }

        try await b.press("x")
        try await a.waitFor("B's completion in A") { screen in
            screen.line(2).hasPrefix(">[x] \(title)") && screen.contains("Completed (1)")
        }

        let kept = "留下來的想法"
        try await b.press("n")
        try await b.waitFor("New idea")
        try await b.type(kept)
        try await b.waitFor(kept)
        try await b.press("C-s")
        try await a.waitFor("B's second idea in A") { $0.contains("All Ideas (2)") && $0.contains(kept) }

        // A deletes the completed idea, which is second in its list (newest first).
        try await a.press("End")
        try await a.waitFor("the completed idea selected in A") { $0.line(3).hasPrefix(">[x] \(title)") }
        try await a.press("d")
        try await a.waitFor("Delete “\(title)”? y/n")
        try await a.press("y")
        try await b.waitFor("A's delete in B") { screen in
            screen.contains("All Ideas (1)") && !screen.contains(title)
        }

        let edited = kept + "（離線修改）"
        try await a.press("o")
        try await a.waitFor("airplane mode in A") { $0.statusBar.contains("Offline") }
        try await a.press("e")
        try await a.waitFor("Edit idea")
        try await a.type("（離線修改）")
        try await a.waitFor(edited)
        try await a.press("C-s")
        try await a.waitFor("the offline edit pending in A") { screen in
            screen.line(2).hasPrefix(">[ ] \(edited)") && screen.statusBar.contains("Offline: 1 pending")
        }
        try await b.keeps("B without A's offline edit", for: .seconds(2)) { screen in
            !screen.contains(edited) && screen.line(2).contains(kept)
        }
        try await a.press("o")
        try await b.waitFor("A's offline edit in B once A is back online") { screen in
            screen.contains("All Ideas (1)") && screen.line(2).contains("[ ] \(edited)")
        }
        try await a.waitFor("A synced again") { $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }

        // Bob's periodic sync may be running at any moment: "Syncing" is as good as "Synced".
        try await stranger.keeps("bob's terminal empty", for: .seconds(1)) { screen in
            screen.contains("All Ideas (0)") && (screen.statusBar.contains("Synced") || screen.statusBar.contains("Syncing"))
        }
        #expect(server.log.contains(" alice\n") && server.log.contains(" bob\n"))
        #expect(!server.log.contains(aliceToken) && !server.log.contains(bobToken), "a token reached the request log")

        // Push, not polling: each app holds a long poll and says so; for 30 s of idleness the
        // server hears nothing from them but those polls.
        for session in [a, b, stranger] {
            try await session.waitFor("a live app") { $0.statusBar.contains("· live") && $0.statusBar.contains("Synced") }
        }
        let before = server.log.split(separator: "\n").count
        try await a.keeps("A idle and live", for: .seconds(30)) { $0.statusBar.contains("· live") }
        let idle = server.log.split(separator: "\n").dropFirst(before).filter { !$0.contains(" /webcourier/") }
        let polls = server.log.split(separator: "\n").dropFirst(before).filter { $0.contains(" /webcourier/") }
        #expect(idle.isEmpty, "requests from idle apps: \(idle); the polls meanwhile: \(polls)")
        // Only now, the stranger's own command line: the app notices what a command does
        // to its database and syncs, which would not be idleness.
        #expect(
            try await stranger.run(["export"]).trimmingCharacters(in: .whitespacesAndNewlines)
                == "{\n  \"formatVersion\" : 2,\n  \"ideas\" : []\n}")
    }

    /// A device signed in before the server spoke Apple's dialect (its `server.json` names no
    /// container and no API token) keeps syncing with no new sign-in, through the container
    /// name it used then; a device signed in with an API token sends both tokens in the query,
    /// as other CloudKit Web Services clients do; each sees the other's ideas.
    @Test func anEarlierSignInAndAnAPITokenSignInShareOneAccount() async throws {
        let server = try ServeProcess()
        defer { server.close() }
        let token = try await server.addAccount("alice")
        let apiToken = try await server.addAPIToken("devices")
        try await server.start()
        let url = try server.url
        let earlier = try DeviceProcess()
        try FileManager.default.createDirectory(at: earlier.file("profiles/default"), withIntermediateDirectories: true)
        try Data(#"{"account":"alice","server":"\#(url)","token":"\#(token)"}"#.utf8)
            .write(to: earlier.file("profiles/default/server.json"))
        let current = try DeviceProcess()
        try await current.run(["account", "sign-in", "alice", "--server", url, "--token", token, "--api-token", apiToken])

        try await earlier.run(["add", "寫於升級之前的裝置"])
        try await earlier.run(["sync"])
        try await current.run(["add", "from the device with an API token"])
        try await current.run(["sync"])
        try await earlier.run(["sync"])
        for device in [earlier, current] {
            let titles = try await device.run(["list"])
            #expect(titles.contains("寫於升級之前的裝置") && titles.contains("from the device with an API token"), "\(titles)")
        }
        #expect(server.log.contains("/database/1/iCloud.ideabox/production/private/"))
        #expect(server.log.contains("/database/1/iCloud.com.buildwithharry.IdeaBox/production/private/"))
        #expect(!server.log.contains(token) && !server.log.contains(apiToken), "a token reached the request log")
    }

    /// `kill -9` of the server while a device uploads 5,000 ideas, then a restart: the
    /// device carries on, and the second device ends up with every idea exactly once.
    @Test func killedServerMidUploadLosesAndDuplicatesNothing() async throws {
        let server = try ServeProcess()
        defer { server.close() }
        let token = try await server.addAccount("alice")
        try await server.start()
        let url = try server.url
        let a = try DeviceProcess()
        let b = try DeviceProcess()
        for device in [a, b] {
            try await device.run(["account", "sign-in", "alice", "--server", url, "--token", token])
        }
        // 50 requests of 100, each held back 150 ms on the device (its simulated network), so
        // the kill lands mid-way however busy the machine is: unslowed, the whole upload can
        // finish between two looks at the server's log.
        let count = 5_000
        try Self.ideas(count).write(to: a.file("ideas.json"))
        try await a.run(["import", a.file("ideas.json").path])
        try await a.run(["remote", "latency", "150"])

        let upload = try a.start(["sync"])
        let uploads = try await server.kill(afterModifies: 3)
        try await server.stop(SIGKILL)
        #expect(uploads < count / 100, "the upload ended before the server was killed")
        try await server.start()
        try await a.run(["remote", "latency", "0"])
        let interrupted = try await upload.exitStatus()
        print("ServedSyncTests: server killed after \(uploads) uploads of 100; the sync in flight exited \(interrupted)")
        if interrupted != 0 {
            try await a.run(["sync"])
        }
        #expect(try await a.run(["status"]).contains("pending changes: 0"))
        try await b.run(["sync"])

        let onA = try await Self.exported(a)
        let onB = try await Self.exported(b)
        #expect(onA.count == count)
        #expect(onB.count == count, "B has \(onB.count) of \(count) ideas")
        #expect(Set(onB.map(\.id)).count == onB.count, "an idea came twice")
        #expect(onA.sorted { $0.id < $1.id } == onB.sorted { $0.id < $1.id })
    }

    /// The ideas file `import` takes: `count` ideas with titles (and ids) `first` … `first + count - 1`.
    static func ideas(_ count: Int, from first: Int = 1) throws -> Data {
        let ideas = (first..<first + count).map { index in
            let id = String(format: "00000000-0000-4000-8000-%012d", index)
            return """
                {"id":"\(id)","title":"想法 \(index)","description":"","isCompleted":\(index % 7 == 0),\
                "createdAt":"2026-11-20T08:00:00.000Z","updatedAt":"2026-11-20T08:00:00.000Z",\
                "deviceId":"11111111-1111-4111-8111-111111111111","version":0,"lastSyncedAt":null}
                """
        }
        return Data(("[" + ideas.joined(separator: ",") + "]").utf8)
    }

    /// The ideas of `device`, without the fields that belong to one device.
    private static func exported(_ device: DeviceProcess) async throws -> [SyncedIdea] {
        try JSONDecoder().decode(Export.self, from: Data(await device.run(["export"]).utf8)).ideas
    }

    /// `export`'s file, as far as these tests read it.
    private struct Export: Decodable {
        var ideas: [SyncedIdea]
    }
}

/// What every device must agree on about an idea.
private struct SyncedIdea: Decodable, Equatable {
    var id: String
    var title: String
    var description: String
    var isCompleted: Bool
    var updatedAt: String
}
