import CloudHTTPClient
import CloudKitModel
import Foundation
import ProcessTestSupport
import RemoteTestSupport
import Testing

/// Issue 62: the terminal as a companion of the IdeaBox app for iPhone, through the real
/// binaries. "Apple" is `AppleCloudKit` (its sign-in page, its 421, its rotating tokens) in
/// front of a real `ideabox serve`; the "iPhone" is `IPhoneAppDevice`, which writes and reads
/// `CD_Idea` records as the app does, straight on the server. The terminal signs in through
/// Apple's page (the browser's way back to the callback, or a pasted token), and from then
/// on the phone's ideas and the terminal's are the same ideas.
@Suite("iCloud companion", .serialized, .takesTurns) struct ICloudCompanionTests {
    static let container = "iCloud.com.buildwithharry.IdeaBox"

    /// The server, Apple in front of it (its sign-in callback on `callbackPort`), and the
    /// app on a phone of the server's account.
    static func apple(callbackPort: Int = 0) async throws -> (server: ServeProcess, apple: AppleCloudKit, phone: IPhoneAppDevice) {
        let (server, token, url) = try await ServeProcess.running(withAccount: "alice")
        let backend = try #require(URL(string: url))
        let apple = try await AppleCloudKit(
            backend: backend, backendToken: token, callback: try #require(URL(string: "http://127.0.0.1:\(callbackPort)/")))
        let phoneClient = WebServicesDatabase(
            endpoint: WebServicesDatabase.Endpoint(server: backend, container: container), accountName: "alice", token: token)
        return (server, apple, IPhoneAppDevice(database: phoneClient, deviceId: "0F6E2C1A-9B8D-4E7F-A3C2-5D4B1E0F9A87"))
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let (descriptor, port) = try LoopbackSocket.listen()
        close(descriptor)
        return port
    }

    /// An idea as the app makes it now.
    static func phoneIdea(_ title: String) -> IPhoneApp.Idea {
        IPhoneApp.Idea(
            id: UUID(), title: title, description: "", isCompleted: false, createdAt: Date(), updatedAt: Date(), lastModifiedBy: "")
    }

    /// What a browser does with Apple's sign-in page: it follows the page's redirect to the
    /// sign-in callback; returns the callback's answer.
    static func browse(_ page: URL) throws -> String {
        let signIn = try LoopbackSocket.exchange(
            port: try #require(page.port), "GET \(page.path)?\(page.query ?? "") HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let location = try #require(
            signIn.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }?.dropFirst("location:".count)
                .trimmingCharacters(in: .whitespaces), "no redirect: \(signIn)")
        let callback = try #require(URL(string: location))
        return try LoopbackSocket.exchange(
            port: try #require(callback.port),
            "GET \(callback.path.isEmpty ? "/" : callback.path)?\(callback.query ?? "") HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    }

    @Test(.timeLimitFromTurn(.seconds(180)))
    func thePhonesIdeasAndTheTerminalsAreTheSameIdeas() async throws {
        let port = try Self.freePort()
        let (server, apple, phone) = try await Self.apple(callbackPort: port)
        defer { server.close() }
        try await phone.prepare()
        let first = Self.phoneIdea("在 iPhone 上寫的 🍎 idea")
        let firstName = try await phone.save(first)

        // The sign-in: the page printed, the browser sent back to the callback.
        let device = try DeviceProcess()
        let (child, output) = try device.startReadingOutput(
            ["account", "sign-in", "--icloud", "--api-token", apple.apiToken, "--callback-port", "\(port)"],
            environment: [ICloudEndpoint.urlVariable: apple.url.absoluteString])
        try await output.waitFor("the sign-in page") { $0.contains { $0.hasSuffix("/signin") } }
        let page = try #require(output.lines.first { $0.hasSuffix("/signin") }.flatMap { URL(string: $0.trimmingCharacters(in: .whitespaces)) })
        let answer = try Self.browse(page)
        #expect(answer.contains("You can close this tab"), "\(answer)")
        #expect(try await child.exitStatus() == 0)
        try await output.waitFor("signed in") { $0.contains { $0.hasPrefix("Signed in to iCloud (production)") } }

        // The app shows the phone's idea; then one the phone adds while it runs, within a second.
        let session = try await TmuxSession(columns: 120, environment: ["IDEABOX_HOME": device.dataRoot.path])
        defer { session.close() }
        try await session.waitFor("the phone's idea") { $0.contains(first.title) && $0.statusBar.contains("Synced") }
        try await session.waitFor("a live app") { $0.statusBar.contains("live") }
        // Idle, the app asks Apple nothing: a token Apple hands out with an answer is no new
        // sign-in to sync again for (it once made a loop of syncs, each handing out the next).
        let answered = apple.signIns
        try await session.keeps("an idle app", for: .seconds(3)) { $0.statusBar.contains("Synced") }
        #expect(apple.signIns - answered <= 1, "\(apple.signIns - answered) requests to Apple while idle")
        let second = Self.phoneIdea("手機剛加的第二個想法")
        let arrived = try await session.arrival(
            "the phone's second idea", timeout: .seconds(10), afterAwaiting: { _ = try await phone.save(second) }
        ) { $0.contains(second.title) }
        print("ICloudCompanionTests: the phone's idea showed in the terminal after \(arrived)")
        #expect(arrived < .seconds(1), "\(arrived)")

        // An edit in the terminal reaches the phone as a CD_Idea it decodes, on its record.
        let id = first.id.uuidString.lowercased()
        try await device.run(["edit", id, "--title", "改在終端機 edited"])
        try await phone.waitFor("the terminal's edit") { ideas in ideas[firstName]?.title == "改在終端機 edited" }
        #expect(try await phone.ideas().count == 2, "no second record for the edited idea")

        // A delete on either side removes the idea on the other.
        let secondName = try #require(try await phone.ideas().first { $0.value.id == second.id }?.key)
        try await phone.delete(recordName: secondName)
        try await session.waitFor("the phone's delete") { !$0.contains(second.title) && $0.contains("All Ideas (1)") }
        let third = try await device.run(["add", "終端機加的，之後刪掉"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try await phone.waitFor("the terminal's idea") { $0.values.contains { $0.title == "終端機加的，之後刪掉" } }
        try await device.run(["rm", third])
        try await phone.waitFor("the terminal's delete") { !$0.values.contains { $0.title == "終端機加的，之後刪掉" } }

        // Offline edits of different fields on both sides both survive.
        try await session.press("o")
        try await session.waitFor("offline") { $0.statusBar.contains("Offline") }
        try await device.run(["edit", id, "--description", "終端機離線時寫的描述"])
        var onPhone = try #require(try await phone.ideas()[firstName])
        onPhone.title = "手機上改的標題"
        onPhone.updatedAt = Date()
        try await phone.save(onPhone, recordName: firstName)
        try await session.waitFor("the terminal's edit waiting") { $0.statusBar.contains("Offline: 1 pending") }
        try await session.press("o")
        try await session.waitFor("the phone's title in the terminal", timeout: .seconds(15)) {
            $0.contains("手機上改的標題") && $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending")
        }
        let shown = try await device.run(["show", id])
        #expect(shown.contains("終端機離線時寫的描述"), "\(shown)")
        try await phone.waitFor("both edits on the phone") { ideas in
            ideas[firstName]?.title == "手機上改的標題" && ideas[firstName]?.description == "終端機離線時寫的描述"
        }

        // Apple ends the sign-in: the bar says so, and a new sign-in made in another terminal
        // (a token pasted) reaches the running app, no restart.
        apple.expireEveryToken()
        try await session.press("s")
        try await session.waitFor("signed out by iCloud") { $0.statusBar.contains("Signed out by iCloud") }
        try await device.run(["add", "寫在被 iCloud 登出時"])
        try await device.run(
            ["account", "sign-in", "--icloud", "--api-token", apple.apiToken, "--callback-port", "0"],
            environment: [ICloudEndpoint.urlVariable: apple.url.absoluteString], input: apple.signIn() + "\n")
        try await session.waitFor("synced with the new sign-in", timeout: .seconds(15)) {
            $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending")
        }
        try await phone.waitFor("the idea written while signed out") { $0.values.contains { $0.title == "寫在被 iCloud 登出時" } }
    }

    @Test(.timeLimitFromTurn(.seconds(120)))
    func aPastedTokenARefusedAPITokenAnExpiredSignInAndNoTokenInAnyOutput() async throws {
        let (server, apple, phone) = try await Self.apple()
        defer { server.close() }
        let endpoint = [ICloudEndpoint.urlVariable: apple.url.absoluteString]
        let device = try DeviceProcess()

        // A wrong API token: one sentence, nothing kept.
        let wrong = String(repeating: "0", count: 64)
        let refused = try await device.execute(
            ["account", "sign-in", "--icloud", "--api-token", wrong, "--callback-port", "0"], environment: endpoint, input: "")
        #expect(refused.status != 0)
        #expect(refused.error.contains("Not signed in to iCloud: iCloud refused the API token"), "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: device.file("profiles/default/server.json").path))

        // The token pasted (as the whole address the browser ended on), on a machine with no browser.
        let token = apple.signIn()
        let pasted = "http://127.0.0.1:8424/?ckWebAuthToken=\(AppleCloudKit.encodedToken(token))\n"
        let signedIn = try await device.run(
            ["account", "sign-in", "--icloud", "--callback-port", "0"], environment: endpoint.merging([ICloudEndpoint.apiTokenVariable: apple.apiToken]) { $1 },
            input: pasted)
        #expect(signedIn.contains("Signed in to iCloud (production)"), "\(signedIn)")
        let file = device.file("profiles/default/server.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        try await phone.prepare()
        try await phone.save(Self.phoneIdea("貼上權杖後同步"))
        _ = try await device.run(["add", "from the terminal"])
        try await device.run(["sync"])
        #expect(try await device.run(["list"]).contains("貼上權杖後同步"))
        let kept = try #require(try ServerCredentials.load(from: file.deletingLastPathComponent()))
        #expect(kept.token != token, "the token Apple handed out since is the one kept")
        #expect(kept.isICloud == true)
        #expect(try await device.run(["account", "status"]) == "Signed in to iCloud (production) as \(kept.account).\n")

        // Encryption is refused on iCloud, in one sentence.
        let encryption = try await device.execute(["account", "encryption", "enable"], input: "a passphrase of some length\n")
        #expect(encryption.status != 0 && encryption.error.contains("Encryption is not possible on iCloud"), "\(encryption.error)")

        // Every token Apple handed out stops working: the next sync says so, and so does status.
        apple.expireEveryToken()
        let expired = try await device.execute(["sync"])
        #expect(expired.status != 0 && expired.error.contains("Signed out by iCloud"), "\(expired.error)")
        let status = try await device.run(["status"])
        #expect(status.contains("Signed out by iCloud"), "\(status)")
        for json in [["status", "--json"], ["account", "status", "--json"], ["log", "--json"]] {
            _ = try await device.execute(json)
        }

        // No token, old or new, in anything printed or logged.
        let printed = try device.everythingPrinted() + (try await device.run(["log"]))
        for secret in [token, AppleCloudKit.encodedToken(token), kept.token ?? ""] where !secret.isEmpty {
            #expect(!printed.contains(secret), "a token in the output")
        }

        // Sign-out forgets it.
        try await device.run(["account", "sign-out"])
        #expect(try ServerCredentials.load(from: file.deletingLastPathComponent())?.token == nil)
        #expect(try await device.run(["account", "status"]).hasPrefix("Signed out of iCloud"))
    }
}

extension IPhoneAppDevice {
    /// Polls the app's ideas until `condition` holds, for up to 15 seconds.
    func waitFor(_ what: String, until condition: ([String: IPhoneApp.Idea]) -> Bool) async throws {
        try await Poll.until("the phone shows \(what)", timeout: .seconds(15), every: .milliseconds(50)) { condition(try await ideas()) }
    }
}
