import CloudKitModel
import CloudServer
import Foundation
import HTTPTypes
import IdeaBoxFoundation
import ProcessTestSupport
import ServerStore
import SQLiteRecordStore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RemoteTestSupport
import Testing

/// The long poll behind a webcourier URL (ours: Apple does not document its answer): held
/// until a subscribed zone of the account changes, answered with a notification, or `{}`
/// when its time is up; never woken by another account or an unsubscribed zone.
@Suite(.serialized)
struct LongPollTests {
    typealias Server = ConformanceServer

    /// `X-IdeaBox-Device`, the header a client names itself with (ours).
    static let deviceHeader = HTTPField.Name("X-IdeaBox-Device")!

    /// Subscribes `account` to Ideas and returns its webcourier URL, asked for by `device` if
    /// it names one.
    static func webcourier(_ server: ConformanceServer, _ account: ConformanceAccount, device: String? = nil) async throws -> URL {
        _ = try await server.post("subscriptions/modify", ["operations": [[
            "operationType": "create", "subscription": ["subscriptionType": "zone", "subscriptionID": "ideas", "zoneID": ["zoneName": "Ideas"]],
        ]]], as: account)
        let token = try await server.post(
            "tokens/create", ["apnsEnvironment": "production"], as: account, in: "/database/1/\(Server.container)/production",
            headers: device.map { [deviceHeader: $0] } ?? [:])
        return try #require(token.json["webcourierURL"].string.flatMap(URL.init(string:)))
    }

    /// Saves a record in `zone` of `account` every 50 ms until `poll` has an answer (the poll
    /// may not have reached the server when the first save lands), at most `tries` times and
    /// for at most 25 s: well inside a poll of 30 s, and long enough for a poll that a loaded
    /// machine registers late (a CI run saw more than 100 saves, 5 s, go before it).
    static func changeUntilAnswered(
        _ server: ConformanceServer, _ account: ConformanceAccount, zone: String = "Ideas", tries: Int = .max,
        _ poll: Task<Answer, any Error>
    ) async throws -> Answer {
        let answered = Answered(poll)
        let deadline = ContinuousClock.now + .seconds(25)
        for index in 0..<tries {
            guard ContinuousClock.now < deadline else { break }
            if let answer = await answered.value { return answer }
            _ = try await server.post("records/modify", [
                "zoneID": ["zoneName": zone],
                "operations": [["operationType": "forceReplace", "record": ["recordName": "r\(index)", "recordType": "Idea", "fields": ["title": ["value": "\(index)"]]]]],
            ], as: account)
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await poll.value
    }

    /// The answer to a poll of `url` (`first`, else a new one) that a change of `account`
    /// woke. A poll whose 30 s ran out with `{}` before any change reached it (a machine so
    /// loaded that every save in `changeUntilAnswered` came before the poll was registered,
    /// or its answer after its time) is no answer to the question: a new poll is tried, three
    /// in all.
    static func wokenPoll(
        _ server: ConformanceServer, _ account: ConformanceAccount, url: URL, first: Task<Answer, any Error>? = nil
    ) async throws -> Answer {
        var poll = first ?? Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=30")!) }
        for _ in 1..<3 {
            let answer = try await changeUntilAnswered(server, account, poll)
            guard answer.status == 200, answer.json.object?.isEmpty == true else { return answer }
            poll = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=30")!) }
        }
        return try await changeUntilAnswered(server, account, poll)
    }

    @Test("A change in a subscribed zone answers the held poll with a recordZone notification", arguments: ConformanceStore.tested)
    func wokenByAChange(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.webcourier(server, server.alice)
        let answer = try await Self.wokenPoll(server, server.alice, url: url)
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.json["notificationType"] == "recordZone" && answer.json["subscriptionID"] == "ideas")
        #expect(answer.json["zoneID"]["zoneName"] == "Ideas" && answer.json["containerIdentifier"].string == Server.container)
        #expect(answer.json["notificationID"].string?.isEmpty == false)
    }

    @Test("At SQLite's gate a poll's set-up waits in the poll line, behind other requests' calls; its answer is made all the same")
    func setUpWaitsInThePollLine() async throws {
        let store = GatedRecordStore(try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200), limit: 1)
        // Counted at the gate: the hub's look at held polls' tokens (once a second) would be one more caller there.
        let server = try await ConformanceServer(store: store, checksHeldTokens: false)
        let url = try await Self.webcourier(server, server.alice)
        let holder = try await GateHolder(store.gate)
        let poll = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=30")!) }
        try await Poll.until("the poll's ticket check waits in the poll line") { store.gate.pollsWaiting == 1 }
        let list = Task { try await server.post("zones/list", [:], as: server.alice) }
        try await Poll.until("the other request waits in the first line") { store.gate.counts.waiting == 2 }
        #expect(store.gate.pollsWaiting == 1)
        try await holder.release()
        #expect(try await list.value.status == 200)
        let answer = try await Self.wokenPoll(server, server.alice, url: url, first: poll)
        #expect(answer.status == 200 && answer.json["notificationType"] == "recordZone", "\(answer)")
    }

    @Test("Issue 61: a held poll whose client goes (its request cancelled, in process as a socket's close) is let go at once, long before its minute")
    func letGoWhenItsClientGoes() async throws {
        let server = try await ConformanceServer(.sqlite)
        let url = try await Self.webcourier(server, server.alice)
        let poll = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=60")!) }
        try await Poll.until("the poll is held") { server.pollsHeld == 1 }
        poll.cancel()
        try await Poll.until("the poll is let go") { server.pollsHeld == 0 }
        let result = await poll.result
        #expect(throws: (any Error).self) { try result.get() }
    }

    @Test(
        "Issue 61: a device that names itself is not woken by its own save, and is by another device's; a client that names none is woken by any save; a malformed name is refused and saves nothing",
        arguments: ConformanceStore.tested)
    func ownSaveWakesNoOwnPoll(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let phoneURL = try await Self.webcourier(server, server.alice, device: "phone-1")
        let plainURL = try await Self.webcourier(server, server.alice)
        func held(_ url: URL, seconds: Int) async throws -> Task<Answer, any Error> {
            let before = server.pollsHeld
            let poll = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=\(seconds)")!) }
            try await Poll.until("the poll is held") { server.pollsHeld > before }
            return poll
        }
        func save(_ name: String, from device: String?) async throws -> Answer {
            try await server.post("records/modify", [
                "zoneID": ["zoneName": "Ideas"],
                "operations": [["operationType": "forceReplace", "record": ["recordName": name, "recordType": "Idea", "fields": [:]]]],
            ], as: server.alice, headers: device.map { [Self.deviceHeader: $0] } ?? [:])
        }

        // The long poll first: the phone's ends on its own after two seconds, and a count of
        // held polls that fell as it ended would never show the other one held.
        let plain = try await held(plainURL, seconds: 30)
        let phone = try await held(phoneURL, seconds: 2)
        #expect(try await save("own", from: "phone-1").status == 200)
        let plainAnswer = try await plain.value
        #expect(plainAnswer.json["notificationType"] == "recordZone", "a client that names no device is woken by any save: \(plainAnswer)")
        let ownAnswer = try await phone.value
        #expect(ownAnswer.status == 200 && ownAnswer.json.object?.isEmpty == true, "the phone's own save woke its poll: \(ownAnswer)")

        let phoneAgain = try await held(phoneURL, seconds: 30)
        #expect(try await save("other", from: "laptop-2").status == 200)
        let otherAnswer = try await phoneAgain.value
        #expect(otherAnswer.json["notificationType"] == "recordZone", "another device's save did not wake the phone: \(otherAnswer)")

        let refused = try await save("refused", from: "not a name")
        #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
        #expect(try await server.record("refused").isRecordError("NOT_FOUND", recordName: "refused"))
    }

    @Test(
        "Issue 61: a device's next poll, sent with its token from before its own save, is held, not answered for it; another device's save answers it, carrying both changes, its token past them; a poll naming no device is answered at once",
        arguments: ConformanceStore.tested)
    func ownSaveAnswersNoOwnNextPoll(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let phoneURL = try await Self.webcourier(server, server.alice, device: "phone-1")
        let plainURL = try await Self.webcourier(server, server.alice)
        let since = try await CarriedChangesTests.databaseToken(server)
        func query(_ token: String, seconds: Int) -> String {
            "?timeout=\(seconds)&carry=records&since=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
        }
        func save(_ name: String, from device: String) async throws {
            let answer = try await server.post("records/modify", [
                "zoneID": ["zoneName": "Ideas"],
                "operations": [["operationType": "forceReplace", "record": ["recordName": name, "recordType": "Idea", "fields": [:]]]],
            ], as: server.alice, headers: [Self.deviceHeader: device])
            #expect(answer.status == 200, "\(answer)")
        }

        try await save("own", from: "phone-1")
        let plain = try await server.fetch(URL(string: plainURL.absoluteString + query(since, seconds: 30))!)
        #expect(plain.json["notificationType"] == "recordZone", "a client that names no device counts every change: \(plain)")
        let quiet = try await server.fetch(URL(string: phoneURL.absoluteString + query(since, seconds: 1))!)
        #expect(quiet.status == 200 && quiet.json.object?.isEmpty == true, "the phone's own save answered its next poll: \(quiet)")

        let before = server.pollsHeld
        let held = Task { try await server.fetch(URL(string: phoneURL.absoluteString + query(since, seconds: 30))!) }
        try await Poll.until("the poll is held") { server.pollsHeld > before }
        try await save("other", from: "laptop-2")
        let answer = try await held.value
        #expect(answer.json["notificationType"] == "recordZone", "\(answer)")
        #expect(answer.json["changes"]["records"].array?.compactMap { $0["recordName"].string }.sorted() == ["other", "own"], "\(answer)")
        let next = try #require(answer.json["syncToken"].string)
        let after = try await server.fetch(URL(string: phoneURL.absoluteString + query(next, seconds: 1))!)
        #expect(after.json.object?.isEmpty == true, "the phone's token moved past both changes: \(after)")
    }

    @Test(
        "Issue 60: a token revoked while its poll is held ends the poll at the hub's next look, its connection closed with nothing written; one woken by a change right after the revoke carries nothing; a deleted account's poll is never woken by a new account of its name",
        arguments: ConformanceStore.tested)
    func revokedWhileHeld(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        /// A token of `account` of its own, named `label`, and its webcourier URL.
        func device(_ account: String, _ label: String) async throws -> (ConformanceAccount, URL) {
            let device = ConformanceAccount(name: account, webToken: AccessToken.generate())
            try await server.store.addAccessToken(hash: AccessToken.hash(device.webToken), account: account, label: label)
            return (device, try await Self.webcourier(server, device))
        }
        // Held past its set-up: a poll counted when it registers still reads its token, and
        // a revoke before that read is answered AUTHENTICATION_FAILED, not by the hub.
        func held(_ url: URL, _ query: String) async throws -> Task<Answer, any Error> {
            let before = server.pollsAdmitted
            let poll = Task { try await server.fetch(URL(string: url.absoluteString + query)!) }
            try await Poll.until("the poll is held") { server.pollsAdmitted > before }
            return poll
        }

        // Revoked, with no change: ended by the hub's look, long before its minute.
        let (phone, phoneURL) = try await device(server.alice.name, "phone")
        let started = ContinuousClock.now
        let poll = try await held(phoneURL, "?timeout=60")
        #expect(try await server.store.revokeAccessToken(account: phone.name, label: "phone") == 1)
        await #expect(throws: InProcessConnectionClosed.self) { try await poll.value }
        #expect(ContinuousClock.now - started < .seconds(45), "ended by the revoke, not by its time")
        #expect(try await server.fetch(URL(string: phoneURL.absoluteString + "?timeout=1")!).isError("AUTHENTICATION_FAILED", status: 401))

        // Revoked, then a change at once, before the hub looks: woken, it carries nothing.
        let (_, tabletURL) = try await device(server.alice.name, "tablet")
        let since = try await CarriedChangesTests.databaseToken(server)
        let encoded = since.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? since
        let carrying = try await held(tabletURL, "?timeout=60&since=\(encoded)&carry=records")
        #expect(try await server.store.revokeAccessToken(account: server.alice.name, label: "tablet") == 1)
        try await CarriedChangesTests.save(server, ["secret"])
        await #expect(throws: InProcessConnectionClosed.self) { try await carrying.value }

        // Bob's account deleted and made again under its name: the old poll hears nothing of the new one.
        let (_, bobURL) = try await device(server.bob.name, "laptop")
        let old = try await held(bobURL, "?timeout=60")
        _ = try await server.store.deleteAccount(server.bob.name)
        let (newBob, _) = try await device(server.bob.name, "new")
        try await server.store.createZone(RecordZoneID(zoneName: Server.ideas), account: newBob.name)
        _ = try await Self.webcourier(server, newBob)
        _ = try await server.create("hello", ["title": ["value": "new bob"]], as: newBob)
        await #expect(throws: InProcessConnectionClosed.self) { try await old.value }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Issue 60: a device that sends each poll again the moment it is answered, eight at a time past its share of four, is paced: in 3 s it is answered tens of times, not thousands",
        arguments: ConformanceStore.tested)
    func aChurningDeviceIsPaced(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.webcourier(server, server.alice)
        let answers = Locked(0)
        let deadline = ContinuousClock.now + .seconds(3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while ContinuousClock.now < deadline {
                        _ = try await server.fetch(URL(string: url.absoluteString + "?timeout=1")!)
                        answers.withLock { $0 += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        // At most: its burst of 4 and 2 a second, each evicting or timing out, and a refusal
        // every 2 s a connection; unpaced, each poll past the share of 4 evicts another at once.
        #expect(answers.withLock { $0 } < 100, "\(answers.withLock { $0 }) answers")
    }

    @Test("Changes in another account, or in a zone not subscribed to, never wake the poll: it times out with {}", arguments: ConformanceStore.tested)
    func notWokenByOthers(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.webcourier(server, server.alice)
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Other"]]]]])
        let started = ContinuousClock.now
        let poll = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=2")!) }
        let fromBob = try await Self.changeUntilAnswered(server, server.bob, tries: 15, poll)
        #expect(fromBob.status == 200 && fromBob.json.object?.isEmpty == true, "\(fromBob)")
        #expect(ContinuousClock.now - started >= .seconds(2))
        let again = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=1")!) }
        let fromOtherZone = try await Self.changeUntilAnswered(server, server.alice, zone: "Other", tries: 10, again)
        #expect(fromOtherZone.json.object?.isEmpty == true, "\(fromOtherZone)")
    }

    @Test("A server told to stop answers its held polls at once with {} instead of keeping them to their time", arguments: ConformanceStore.tested)
    func stoppingAnswersHeldPolls(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.webcourier(server, server.alice)
        let started = ContinuousClock.now
        let poll = Task { try await server.fetch(URL(string: url.absoluteString + "?timeout=60")!) }
        // Bob's changes never wake alice's poll; they give it time to reach the server.
        for index in 0..<10 {
            _ = try await server.post("records/modify", [
                "zoneID": ["zoneName": "Ideas"],
                "operations": [["operationType": "forceReplace", "record": ["recordName": "b\(index)", "recordType": "Idea", "fields": [:]]]],
            ], as: server.bob)
        }
        server.requestStop()
        let answer = try await poll.value
        #expect(answer.status == 200 && answer.json.object?.isEmpty == true, "\(answer)")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("A forged or cut webcourier URL is refused; a POST is 405; a timeout outside 1...60 is BAD_REQUEST")
    func hostilePolls() async throws {
        let server = try await ConformanceServer(.sqlite)
        let url = try await Self.webcourier(server, server.alice)
        let text = url.absoluteString
        let ticket = url.lastPathComponent
        let forgeries = (0..<ticket.count).map { server.baseURL + "/webcourier/" + Forgery.replacing(characterAt: $0, of: ticket) }
        #expect(!forgeries.contains(text))
        for candidate in forgeries + [String(text.dropLast(10)), server.baseURL + "/webcourier/", server.baseURL + "/webcourier/a.b"] {
            let answer = try await server.fetch(URL(string: candidate)!)
            #expect(answer.status == 401 || answer.status == 404, "\(candidate) \(answer)")
        }
        #expect(try await server.fetch(url, method: "POST", body: Data()).status == 405)
        #expect(try await server.fetch(URL(string: text + "?timeout=600")!).status == 400)
    }

    @Test("Two serve processes over one PostgreSQL: a change written through one wakes a poll held by the other (LISTEN/NOTIFY)",
          .enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
    func acrossProcesses() async throws {
        let stores = try await TestPostgres.stores(count: 2, clock: .system)
        let account = "alice-\(UUID().uuidString.prefix(8).lowercased())"
        let token = AccessToken.generate()
        try await stores[0].addAccessToken(hash: AccessToken.hash(token), account: account)
        try await stores[0].createZone(RecordZoneID(zoneName: "Ideas"), account: account)
        try await stores[0].saveSubscription(ZoneSubscription(id: "ideas", zone: RecordZoneID(zoneName: "Ideas")), account: account)
        let log = RequestLog(clock: .system) { _ in }
        var servers: [RunningServer] = []
        for store in stores { servers.append(try await CloudServer(store: store, port: 0, containers: [ServedRemote.container], log: log).start()) }
        defer { servers.forEach { $0.requestStop() } }
        let base = servers.map { "http://127.0.0.1:\($0.port)/database/1/\(Server.container)/production" }
        func post(_ server: Int, _ path: String, _ body: [String: Any]) async throws -> [String: Any] {
            var request = URLRequest(url: URL(string: base[server] + path)!)
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: request)
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }
        let courier = try #require(try await post(1, "/tokens/create", ["apnsEnvironment": "production"])["webcourierURL"] as? String)
        let poll = Task { () -> Data in
            try await URLSession.shared.data(from: URL(string: courier + "?timeout=30")!).0
        }
        let answered = Answered(poll)
        var notification: Data?
        for index in 0..<100 {
            notification = await answered.value
            if notification != nil { break }
            _ = try await post(0, "/private/records/modify", [
                "zoneID": ["zoneName": "Ideas"],
                "operations": [["operationType": "forceReplace", "record": ["recordName": "r\(index)", "recordType": "Idea", "fields": [:]]]],
            ])
            try await Task.sleep(for: .milliseconds(50))
        }
        let woken = try #require(notification.flatMap { ReceivedJSON(parsing: $0) })
        #expect(woken["subscriptionID"] == "ideas" && woken["zoneID"]["zoneName"] == "Ideas", "\(woken)")
    }
}

/// The answer of a task once it has one, without waiting for it.
actor Answered<Value: Sendable> {
    private var result: Value?

    init(_ task: Task<Value, any Error>) {
        Task { [weak self] in
            if let value = try? await task.value { await self?.set(value) }
        }
    }

    private func set(_ value: Value) { result = value }

    var value: Value? { result }
}
