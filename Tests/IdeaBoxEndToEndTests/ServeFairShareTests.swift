import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A signed-in account that means harm, against the real `ideabox serve` limited to 1,024
/// open files: long polls sent and dropped (FIN or RST), long polls and bodies held open by
/// the thousand, slow uploads. Each attack runs from a thread of its own, over loopback, in
/// bounded count and time; another account's requests are answered within a second while
/// it runs, and what the attack took (files, polls, memory) is given back.
@Suite("serve gives every account its fair share", .serialized, .takesTurns)
struct ServeFairShareTests {
    static let container = "iCloud.com.buildwithharry.IdeaBox"
    /// How often a test asks `/metrics` while it waits: each ask is a connection of its own,
    /// and a server under test with thousands held should not get a hundred more a second.
    static let metricsInterval: Duration = .milliseconds(50)
    /// How soon another account is answered while one account holds what it holds: far below
    /// a held poll's time (up to 60 s) or a slow body's patience (10 s), so bob never waits
    /// behind alice. Not a second: on a loaded CI machine a plain answer has taken 1.04 s.
    static let promptly: Duration = .seconds(5)

    /// A server limited to 1,024 files (unless `fileLimit` is nil) with accounts alice, the
    /// attacker, and bob; `arguments` go to `serve`.
    private static func server(_ arguments: [String] = [], fileLimit: Int? = 1_024) async throws -> Served {
        // This test process holds more than a thousand sockets of its own.
        #expect(FileLimit.raiseToHardLimit() > 2_400)
        let server = try ServeProcess()
        let alice = try await server.addAccount("alice"), bob = try await server.addAccount("bob")
        try await server.start(arguments, fileLimit: fileLimit)
        let port = try #require(URLComponents(string: try server.url)?.port)
        return Served(process: server, port: port, alice: alice, bob: bob)
    }

    @Test("Polls sent and dropped at once (FIN and RST) are let go at once: another account is answered within seconds")
    func hitAndRunPolls() async throws {
        let served = try await Self.server()
        defer { served.process.close() }
        let poll = try await served.webcourierRequest(token: served.alice)
        let baseline = try served.openFiles()

        // 1,000 polls in bursts of 100, each connection dropped as soon as it is sent; bob
        // asks between the bursts.
        var slowest: Duration = .zero
        for burst in 0..<10 {
            let port = served.port
            try await OwnThread.run {
                for index in 0..<100 {
                    let descriptor = try LoopbackSocket.connect(port: port)
                    LoopbackSocket.send(poll, on: descriptor)
                    if (burst + index).isMultiple(of: 2) {
                        shutdown(descriptor, Int32(SHUT_WR))
                        close(descriptor)
                    } else {
                        LoopbackSocket.reset(descriptor)
                    }
                }
            }
            if burst.isMultiple(of: 3) { slowest = max(slowest, try await served.bobListsZones()) }
        }
        slowest = max(slowest, try await served.bobListsZones())
        #expect(slowest < Self.promptly, "bob waited \(slowest)")
        // Everything the polls took is given back: their files, their places in the hub.
        try await Poll.until("the dropped polls' files are closed", timeout: .seconds(5)) { try served.openFiles() <= baseline + 8 }
        let metrics = try await served.get("/metrics")
        #expect(metrics.contains("ideabox_long_polls_held 0.0"), "\(metrics)")
        #expect(!served.process.log.contains(" 500 "))
    }

    @Test("Twenty thousand polls reset at once leave the server's memory where it was within five seconds")
    func resetPollsLeaveNoMemory() async throws {
        let served = try await Self.server(fileLimit: nil)
        defer { served.process.close() }
        let poll = try await served.webcourierRequest(token: served.alice)
        // Warm: the first requests of a process grow its heap for good.
        for _ in 0..<200 {
            let descriptor = try LoopbackSocket.connect(port: served.port)
            LoopbackSocket.send(poll, on: descriptor)
            LoopbackSocket.reset(descriptor)
        }
        try await Poll.until("the warm-up's polls are let go", timeout: .seconds(5), every: Self.metricsInterval) { try await served.get("/metrics").contains("ideabox_long_polls_held 0.0") }
        let before = try served.residentBytes()
        let port = served.port
        try await OwnThread.run {
            for _ in 0..<20_000 {
                let descriptor = try LoopbackSocket.connect(port: port)
                LoopbackSocket.send(poll, on: descriptor)
                LoopbackSocket.reset(descriptor)
            }
        }
        let ended = ContinuousClock.now
        try await Poll.until("the server's memory is back within 20 MiB", timeout: .seconds(5)) { try served.residentBytes() < before + 20 << 20 }
        #expect(ContinuousClock.now - ended < .seconds(5))
        // Over SQLite the polls' store calls wait their turn at the store's gate, so the last
        // reset ones may still be let go after the memory is back.
        try await Poll.until("the reset polls are let go", timeout: .seconds(5), every: Self.metricsInterval) {
            try await served.get("/metrics").contains("ideabox_long_polls_held 0.0")
        }
    }

    @Test("Two thousand polls held, each on a connection that fetched first as a device does, cost the server under 21 KiB of heap each")
    func heldPollsAfterAFetchCostLittle() async throws {
        let served = try await Self.server(["--max-polls-per-account", "5000", "--max-polls-per-token", "5000"], fileLimit: nil)
        defer { served.process.close() }
        let poll = try await served.webcourierRequest(token: served.alice)
        // The fetch and the poll go together: the poll is read once the fetch is answered.
        let fetch = "POST /database/1/\(Self.container)/production/private/changes/database HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer \(served.alice)\r\nContent-Length: 2\r\n\r\n{}"
        // Warm: the first requests of a process grow its heap for good.
        let warm = try await served.holdConnections(200) { _ in fetch + poll }
        defer { warm.forEach { close($0) } }
        try await served.untilPollsHeld(200, "the warm-up's polls are held", timeout: .seconds(20))
        // Two thousand in two halves, each measured, each in batches of a hundred sent once
        // the last is held (a held poll's cost, not the peak of a loaded server reading
        // hundreds of fetches at once).
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        func holdAThousand(after count: Int) async throws {
            for batch in 1...10 {
                held += try await served.holdConnections(100) { _ in fetch + poll }
                try await served.untilPollsHeld(count + batch * 100, "\(count + batch * 100) polls are held", timeout: .seconds(30))
            }
        }
        let (before, heapBefore) = (try served.residentBytes(), try await served.heapInUse())
        try await holdAThousand(after: 200)
        let (middle, heapMiddle) = (try served.residentBytes(), try await served.heapInUse())
        try await holdAThousand(after: 1_200)
        let (after, heapAfter) = (try served.residentBytes(), try await served.heapInUse())
        print("ServeFairShareTests memory: \((middle - before) / 1_000) and \((after - middle) / 1_000) bytes a poll in the two halves; heap in use \((heapMiddle - heapBefore) / 1_000) and \((heapAfter - heapMiddle) / 1_000)")
        // What the heap holds is the cost; the resident memory follows it loosely (glibc's free
        // pages between held objects, a trim by `HeapTrimmer` or none): RSS read 18.0-21.9 KiB a
        // poll over six runs here, one of them loaded, and 21.8-22.1 in a CI run, where the heap
        // in use read 19.6-20.0 every time. This debug build's heap: 30 KiB while a request's
        // middlewares and route ran in the connection's task, 22 KiB while a poll was held in
        // its answer's body, under 20 since each request runs in a task of its own and a poll is
        // held by its connection (`ServedHTTP1Channel`, `PollAnswerWriter`).
        let heapPerPoll = max(heapMiddle - heapBefore, heapAfter - heapMiddle) / 1_000
        #expect(heapPerPoll < 21 << 10, "\(heapPerPoll) bytes of heap a poll")
        let residentPerPoll = min(middle - before, after - middle) / 1_000
        #expect(residentPerPoll < 24 << 10, "\(residentPerPoll) bytes resident a poll")
        #expect(!served.process.log.contains(" 500 "))
    }

    @Test("Issue 60: 128 connections of 16 devices, each sending its poll again the moment it is answered, are paced: the server begins about its account's pace of polls, not thousands, and another account is answered promptly")
    func pollsSentAgainAtOnceArePaced() async throws {
        let served = try await Self.server(fileLimit: nil)
        defer { served.process.close() }
        var requests: [String] = []
        for device in 0..<16 {
            let token = device == 0 ? served.alice : try await served.process.command(["account", "token", "add", "alice", "--label", "d\(device)"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let poll = try await served.webcourierRequest(token: token)
            // `Connection: close`: each answer ends its connection, and the next poll is a new one.
            requests.append(poll.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"))
        }
        let (port, seconds) = (served.port, 6.0)
        let started = ContinuousClock.now
        let churn = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for connection in 0..<128 {
                    let request = requests[connection % 16]
                    group.addTask {
                        try await OwnThread.run {
                            var answered = 0
                            while ContinuousClock.now - started < .seconds(seconds) {
                                _ = try LoopbackSocket.exchange(port: port, request, waitingAtMost: 10)
                                answered += 1
                            }
                            return answered
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        var slowest: Duration = .zero
        while ContinuousClock.now - started < .seconds(seconds) {
            slowest = max(slowest, try await served.bobListsZones())
            try await Task.sleep(for: .milliseconds(250))
        }
        let answered = try await churn.value
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        // Polls the server began (past the pace's gate): answered 200, `{}` or a change.
        let begun = served.process.log.split(separator: "\n").count { $0.contains("/webcourier/") && $0.contains(" 200 ") }
        print("ServeFairShareTests churn: \(begun) polls begun, \(answered) answered in \(elapsed) s; bob's slowest zones/list \(slowest)")
        // The account's pace: 64 at once, then 32 a second (and the 16 subscriptions' set-up).
        #expect(begun <= 64 + Int(32 * elapsed) + 32, "\(begun) polls begun of \(answered) answered in \(elapsed) s")
        #expect(slowest < Self.promptly, "bob waited \(slowest)")
        #expect(!served.process.log.contains(" 500 "))
    }

    @Test("Eleven hundred polls and slow bodies held open by one account keep nobody out: its own are closed to make room")
    func heldPollsAndBodiesMakeRoom() async throws {
        // Shares this large let one account hold more than the server's connections.
        let served = try await Self.server(["--max-polls-per-account", "5000", "--max-polls-per-token", "5000", "--max-bodies-per-account", "5000"])
        defer { served.process.close() }
        let poll = try await served.webcourierRequest(token: served.alice)
        let body = served.slowBody(token: served.alice)
        let held = try await served.holdConnections(1_100) { $0.isMultiple(of: 2) ? poll : body }
        defer { held.forEach { close($0) } }
        let took = try await served.bobListsZones()
        #expect(took < Self.promptly, "bob waited \(took)")
        #expect(!served.process.log.contains(" 500 "))
    }

    @Test("One account's slow bodies get its share (16) and 16 more wait in line, the rest TRY_AGAIN_LATER at once; another account is answered within seconds")
    func slowBodiesPastTheShare() async throws {
        let served = try await Self.server()
        defer { served.process.close() }
        let body = served.slowBody(token: served.alice)
        let held = try await served.holdConnections(1_100) { _ in body }
        defer { held.forEach { close($0) } }
        let took = try await served.bobListsZones()
        #expect(took < Self.promptly, "bob waited \(took)")
        // The last one was refused unread, and told when to try again.
        let refusal = String(decoding: LoopbackSocket.readAll(held[held.count - 1], waitingAtMost: 5), as: UTF8.self)
        #expect(refusal.hasPrefix("HTTP/1.1 503") && refusal.contains("TRY_AGAIN_LATER") && refusal.contains("Retry-After: 1"), "\(refusal.prefix(400))")
    }

    @Test("Sixteen slow uploads of one account leave another account's upload answered: each account has its share")
    func slowUploadsPastTheShare() async throws {
        let served = try await Self.server()
        defer { served.process.close() }
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<16 {
            let descriptor = try LoopbackSocket.connect(port: served.port)
            LoopbackSocket.send(
                "POST \(try await served.uploadPath(token: served.alice)) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\nx", on: descriptor)
            held.append(descriptor)
        }
        try await Poll.until("serve has read every upload's start", timeout: .seconds(10)) {
            held.allSatisfy { LoopbackSocket.serverEnd(of: $0).map { !$0.isOpen || $0.unread == 0 } ?? true }
        }
        let answer = try LoopbackSocket.exchange(
            port: served.port,
            "POST \(try await served.uploadPath(token: served.bob)) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
            waitingAtMost: 10)
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("fileChecksum"), "\(answer.prefix(400))")
        // Past its share, alice's next upload is refused unread.
        let refused = try LoopbackSocket.exchange(
            port: served.port,
            "POST \(try await served.uploadPath(token: served.alice)) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
            waitingAtMost: 10)
        #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("TRY_AGAIN_LATER"), "\(refused.prefix(400))")
    }

    @Test("Issue 60: revoking an account's tokens ends its requests in progress within seconds (a body, an upload being sent): their connections are closed; another account's go on")
    func aRevokeEndsRequestsInProgress() async throws {
        let served = try await Self.server()
        defer { served.process.close() }
        let upload = try await served.uploadPath(token: served.alice)
        let bobsBody = served.slowBody(token: served.bob)
        let held = try await served.holdConnections(3) { index in
            switch index {
            case 0: served.slowBody(token: served.alice)
            case 1: "POST \(upload) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nx"
            default: bobsBody
            }
        }
        defer { held.forEach { close($0) } }
        try await Poll.until("serve has read every request's start", timeout: .seconds(10)) {
            held.allSatisfy { LoopbackSocket.serverEnd(of: $0).map { !$0.isOpen || $0.unread == 0 } ?? true }
        }
        #expect(held.allSatisfy { LoopbackSocket.serverEnd(of: $0)?.isOpen == true }, "every request is in progress before the revoke")
        _ = try await served.process.command(["account", "revoke", "alice"])
        let revoked = ContinuousClock.now
        // The hub looks once a second; a loaded machine may take a few.
        try await Poll.until("alice's body and upload are closed", timeout: .seconds(10)) {
            held.prefix(2).allSatisfy { LoopbackSocket.serverEnd(of: $0).map { !$0.isOpen } ?? true }
        }
        #expect(ContinuousClock.now - revoked < .seconds(10))
        #expect(LoopbackSocket.serverEnd(of: held[2])?.isOpen == true, "bob's body goes on")
        #expect(!served.process.log.contains(" 500 "))
    }
}

/// A server started for one test, with the tokens of its two accounts.
private struct Served {
    let process: ServeProcess
    let port: Int
    let alice: String
    let bob: String

    /// `POST /database/1/CONTAINER/production/private/PATH` with `body`, as `token`'s account.
    func post(_ path: String, _ body: String, token: String) async throws -> (status: Int, json: [String: Any]) {
        let answer = try await exchange(
            "POST /database/1/\(ServeFairShareTests.container)/production/private/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let status = Int(answer.dropFirst("HTTP/1.1 ".count).prefix(3)) ?? 0
        let json = parts.count > 1 ? (try? JSONSerialization.jsonObject(with: Data(parts[1].utf8))) as? [String: Any] : nil
        return (status, json ?? [:])
    }

    /// `GET path` (the operator's pages), its body.
    func get(_ path: String) async throws -> String {
        let answer = try await exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }

    /// `request`'s whole answer, on a connection of its own, read on a thread of its own: a
    /// server holding thousands of polls may take a while, and the test pool's threads are
    /// every test's.
    private func exchange(_ request: String) async throws -> String {
        let port = port
        return try await OwnThread.run { try LoopbackSocket.exchange(port: port, request) }
    }

    /// Waits until `/metrics` says `count` long polls are held; if it never does, the error
    /// names the last count seen and the statuses of the requests the server logged.
    func untilPollsHeld(_ count: Int, _ what: String, timeout: Duration) async throws {
        var last = "none"
        do {
            try await Poll.until(what, timeout: timeout, every: ServeFairShareTests.metricsInterval) {
                let metrics = try await get("/metrics")
                last = metrics.split(separator: "\n").first { $0.hasPrefix("ideabox_long_polls_held ") }.map(String.init) ?? "none"
                return last == "ideabox_long_polls_held \(count).0"
            }
        } catch let timeout as PollTimeout {
            let statuses = Dictionary(grouping: process.log.split(separator: "\n").compactMap { line in
                line.split(separator: " ").first { $0.count == 3 && Int($0).map { (100..<600).contains($0) } == true }.map(String.init)
            }, by: { $0 }).mapValues(\.count)
            let unusual = process.log.split(separator: "\n").filter { !$0.contains(" 200 ") }.prefix(5)
            throw PollTimeout(description: "\(timeout.description); last seen: \(last); statuses logged: \(statuses); \(unusual.joined(separator: "\n"))")
        }
    }

    /// `count` connections, the one at index i sending `request(i)`, from a thread of their
    /// own; returns once the server has taken the last of them (to read it, or to close it).
    /// The caller closes them.
    func holdConnections(_ count: Int, sending request: @escaping @Sendable (Int) -> String) async throws -> [Int32] {
        let port = port
        let held = try await OwnThread.run {
            try (0..<count).map { index in
                let descriptor = try LoopbackSocket.connect(port: port)
                LoopbackSocket.send(request(index), on: descriptor)
                return descriptor
            }
        }
        do {
            try await Poll.until("serve has taken the last connection", timeout: .seconds(20)) {
                LoopbackSocket.serverEnd(of: held[held.count - 1]).map { !$0.isOpen || $0.unread == 0 } ?? true
            }
        } catch {
            held.forEach { close($0) }
            throw error
        }
        return held
    }

    /// How long bob's `zones/list` takes to be answered (it must be answered: 200).
    func bobListsZones() async throws -> Duration {
        let (port, bob) = (port, bob)
        return try await OwnThread.run {
            let started = ContinuousClock.now
            let answer = try LoopbackSocket.exchange(
                port: port,
                "POST /database/1/\(ServeFairShareTests.container)/production/private/zones/list HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(bob)\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                waitingAtMost: 30)
            let took = ContinuousClock.now - started
            guard answer.hasPrefix("HTTP/1.1 200") else { throw EndToEndError(description: "bob was answered \(answer.prefix(200))") }
            return took
        }
    }

    /// A long poll of `token`'s account, subscribed to its default zone: the whole request.
    func webcourierRequest(token: String) async throws -> String {
        let subscribed = try await post(
            "subscriptions/modify",
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionType":"zone","subscriptionID":"s","zoneID":{"zoneName":"_defaultZone"}}}]}"#,
            token: token)
        #expect(subscribed.status == 200)
        let created = try await post("tokens/create", #"{"apnsEnvironment":"production"}"#, token: token)
        let url = try #require(created.json["webcourierURL"] as? String)
        let path = try #require(URLComponents(string: url)?.path)
        return "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    }

    /// The start of a request whose body (100,000 bytes, it says) never comes.
    func slowBody(token: String) -> String {
        "POST /database/1/\(ServeFairShareTests.container)/production/private/records/modify HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Length: 100000\r\n\r\n{"
    }

    /// The path of a new upload URL of `token`'s account.
    func uploadPath(token: String) async throws -> String {
        let answer = try await post("assets/upload", #"{"tokens":[{"recordType":"File","fieldName":"contents"}]}"#, token: token)
        let tokens = try #require(answer.json["tokens"] as? [[String: Any]])
        let url = try #require(tokens.first?["url"] as? String)
        return try #require(URLComponents(string: url)?.path)
    }

    func openFiles() throws -> Int {
        let pid = try #require(process.pid)
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    /// The bytes the server's heap has handed out and not had back (`/metrics`' mallinfo2),
    /// read after now: the server asks its heap at most once a second, so the answer of a
    /// scrape a second from now is a reading taken after this call.
    func heapInUse() async throws -> Int {
        let asked = ContinuousClock.now
        try await Poll.until("a second has passed", timeout: .seconds(5), every: .milliseconds(100)) { ContinuousClock.now - asked > .seconds(1) }
        let metrics = try await get("/metrics")
        let line = try #require(metrics.split(separator: "\n").first { $0.hasPrefix("ideabox_heap_in_use_bytes ") })
        return try #require(Double(line.split(separator: " ")[1]).map { Int($0) })
    }

    /// The server's resident memory, in bytes.
    func residentBytes() throws -> Int {
        let pid = try #require(process.pid)
        let fields = try String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8).split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
