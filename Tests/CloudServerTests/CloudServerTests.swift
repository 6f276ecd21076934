import CloudHTTPClient
import CloudKitModel
import CloudServer
import CloudWebServices
import Foundation
import ProcessTestSupport
import RemoteTestSupport
import ServerStore
import Testing

/// `ideabox serve` as a security boundary: every hostile request gets the documented error
/// and leaves the store exactly as it was; one account never reaches another's data.
@Suite struct CloudServerTests {
    static let modify = ServerFixture.path("records/modify")
    static let changes = ServerFixture.path("changes/zone")
    static let query = ServerFixture.path("records/query")
    static var zone: [String: Any] { ["zoneName": "Ideas"] }

    /// A modify body that saves one record named `name` with `fields`.
    static func save(_ name: String, operation: String = "forceReplace", changeTag: String? = nil, fields: Any) -> [String: Any] {
        var record: [String: Any] = ["recordName": name, "recordType": "Idea", "fields": fields]
        if let changeTag { record["recordChangeTag"] = changeTag }
        return ["zoneID": zone, "atomic": false, "operations": [["operationType": operation, "record": record]]]
    }

    static var harmless: [String: Any] { save("new", fields: ["title": ["value": "hello", "type": "STRING"]])}

    @Test("No token: AUTHENTICATION_REQUIRED (421); a wrong or revoked token: AUTHENTICATION_FAILED (401); nothing written")
    func tokens() async throws {
        let server = try await ServerFixture(socket: true)
        let before = try server.snapshot()
        let missing = try await server.send(Self.modify, token: nil, json: Self.harmless)
        #expect(missing.status == 421 && missing.json["serverErrorCode"] as? String == "AUTHENTICATION_REQUIRED")
        for token in ["ibx_not-a-token", server.revokedToken, "", String(repeating: "x", count: 10_000)] {
            let refused = try await server.send(Self.modify, token: token, json: Self.harmless)
            #expect(refused.status == 401 && refused.json["serverErrorCode"] as? String == "AUTHENTICATION_FAILED")
        }
        let basic = try await server.send(Self.modify, authorization: "Basic YWxpY2U6eA==", body: Data("{}".utf8))
        #expect(basic.status == 401)
        #expect(try server.snapshot() == before)
        #expect(await server.client("carol", token: server.revokedToken).accountStatusRefused())
    }

    @Test("Another account's zone and record names reach only the sender's own namespace")
    func isolation() async throws {
        let server = try await ServerFixture(socket: true)
        let alice = server.client("alice", token: server.aliceToken)
        let bob = server.client("bob", token: server.bobToken)
        let secret = try #require(try await alice.records(in: ServerFixture.zone, ofType: "Idea").first)
        let before = try server.snapshot()

        #expect(try await bob.records(in: ServerFixture.zone, ofType: "Idea").isEmpty)
        #expect(try await bob.fetchChanges(in: ServerFixture.zone, since: nil, resultsLimit: 100).changed.isEmpty)
        // Alice's record with her change tag: for bob there is no such record.
        let update = try await bob.modify(saving: [secret], deleting: [], savePolicy: .ifServerRecordUnchanged)
        #expect(update.failures == [secret.recordID: .unknownItem])
        // Deleting alice's record name deletes nothing of hers.
        _ = try await bob.modify(saving: [], deleting: [secret.recordID], savePolicy: .allKeys)
        // Alice's change token names her zone: in bob's hands it has expired.
        let aliceToken = try await alice.fetchChanges(in: ServerFixture.zone, since: nil, resultsLimit: 100).token
        #expect(await cloudError { try await bob.fetchChanges(in: ServerFixture.zone, since: aliceToken, resultsLimit: 100) } == .changeTokenExpired)
        // A zone only alice has does not exist for bob, and bob's list shows his own zones.
        try await alice.createZone(RecordZoneID(zoneName: "AlicePrivate"))
        #expect(await cloudError { try await bob.records(in: RecordZoneID(zoneName: "AlicePrivate"), ofType: "Idea") } == .zoneNotFound)
        let list = try await server.send(ServerFixture.path("zones/list"), token: server.bobToken, json: [:])
        #expect((list.json["zones"] as? [[String: Any]])?.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String } == ["_defaultZone", "Ideas"])

        let after = try server.snapshot()
        #expect(after == before.replacingOccurrences(of: "alice: zones [\"Ideas\"]", with: "alice: zones [\"AlicePrivate\", \"Ideas\"]"))
        #expect(try await alice.records(in: ServerFixture.zone, ofType: "Idea") == [secret])
    }

    @Test("A body framed as HTTP/1.1 never frames one (Transfer-Encoding: xchunked) is a 400 with the JSON error, not a 500; nothing written")
    func badFramingIsABadRequest() async throws {
        let server = try await ServerFixture(socket: true)
        let before = try server.snapshot()
        let answer = try await server.raw(
            "POST \(Self.modify) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.aliceToken)\r\n"
                + "Transfer-Encoding: xchunked\r\nConnection: close\r\n\r\n{}")
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
        #expect(answer.contains("\"serverErrorCode\":\"BAD_REQUEST\""), "\(answer)")
        #expect(try server.snapshot() == before)
        #expect(!server.logLines.lines.withLock { $0 }.contains { $0.contains(" 500 ") })
    }

    @Test("A client that leaves halfway through its body is logged as such (499), never as a server error")
    func aClientThatLeavesIsNotAServerError() async throws {
        let server = try await ServerFixture(socket: true)
        try await server.raw(
            "POST \(Self.modify) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.aliceToken)\r\n"
                + "Content-Length: 1000\r\n\r\n{\"zoneID\":", answer: false)
        let end = ContinuousClock.now + .seconds(10)
        while server.logLines.lines.withLock({ $0.isEmpty }), ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
        }
        let lines = server.logLines.lines.withLock { $0 }
        #expect(lines.count == 1 && lines[0].contains("/records/modify 499 "), "\(lines)")
    }

    @Test("A connection that sends nothing, or stalls halfway through a header, is closed after the idle timeout")
    func idleAndStalledConnectionsAreClosed() async throws {
        let server = try await ServerFixture(socket: true, idleTimeout: .seconds(1))
        for opening in ["", "POST \(Self.modify) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthor"] {
            let (answer, waited) = try await server.timedRaw(opening, waitingAtMost: 30)
            // Closed by the server (recv saw the end), not by the socket's own 30 s limit; a
            // loaded run may take a few seconds more than the 1 s asked for.
            #expect(waited < .seconds(15), "\(waited) for \(opening.debugDescription)")
            #expect(!answer.contains(" 500 "), "\(answer)")
        }
    }

    @Test("A header over the limit gets the JSON error (400, BAD_REQUEST) that names the limit, not an empty 400")
    func oversizedHeaderIsAJSONError() async throws {
        let server = try await ServerFixture(socket: true)
        let answer = try await server.raw(
            "POST \(Self.modify) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 70_000))\r\n\r\n{}")
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
        #expect(answer.contains("application/json") && answer.contains("\"serverErrorCode\":\"BAD_REQUEST\""), "\(answer)")
        #expect(answer.contains("over 64 KiB"), "\(answer)")
    }

    @Test("A request without a Host header, or with two, is a 400 (RFC 9112) that reaches nothing; one Host is served")
    func exactlyOneHostHeader() async throws {
        let server = try await ServerFixture(socket: true)
        let body = "Authorization: Bearer \(server.aliceToken)\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        for hosts in ["", "Host: 127.0.0.1\r\nHost: evil.example\r\n"] {
            let answer = try await server.raw("POST \(ServerFixture.path("zones/list")) HTTP/1.1\r\n\(hosts)\(body)")
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("exactly one Host header"), "\(answer.prefix(300))")
        }
        let served = try await server.raw("POST \(ServerFixture.path("zones/list")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(body)")
        #expect(served.hasPrefix("HTTP/1.1 200"), "\(served.prefix(300))")
    }

    @Test("A CONNECT is answered 405 at once and its connection ended, not left to the idle timeout")
    func connectIsRefusedAtOnce() async throws {
        let server = try await ServerFixture(socket: true, idleTimeout: .seconds(60))
        for target in ["127.0.0.1:80", ServerFixture.path("zones/list")] {
            let (answer, took) = try await server.timedRaw("CONNECT \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", waitingAtMost: 30)
            #expect(answer.hasPrefix("HTTP/1.1 405"), "\(answer.prefix(300))")
            #expect(took < .seconds(10), "\(took)")
        }
    }

    @Test("At its connection limit the server closes the connection idle longest: 40 connections that send nothing never keep a request out")
    func idleConnectionsMakeRoomForANewOne() async throws {
        // An idle timeout far past the bound below, so that only making room can pass in time
        // (a loaded machine answers a request in seconds, not in minutes).
        let server = try await ServerFixture(socket: true, idleTimeout: .seconds(300), maximumConnections: 16)
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<40 { idle.append(try server.connection()) }
        let (answer, took) = try await server.timedRaw("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", waitingAtMost: 120)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        // Well under the 300 s idle timeout that would otherwise be the first to make room.
        #expect(took < .seconds(120), "\(took)")
    }

    @Test("Quotas over the wire: a zone past the limit is its own QUOTA_EXCEEDED; an upload past the asset bytes too, refused unread when its length shows it")
    func quotasCountZonesAndAssetsOverTheWire() async throws {
        // An idle timeout far past the bound below: the answer must not wait for the body.
        let server = try await ServerFixture(socket: true, idleTimeout: .seconds(300))
        try await server.store.setQuota(AccountQuota(maxRecords: nil, maxZones: 2, maxAssetBytes: 1 << 20), account: "alice")
        let zones = try await server.send(ServerFixture.path("zones/modify"), token: server.aliceToken, json: [
            "operations": ["Second", "Third"].map { ["operationType": "create", "zone": ["zoneID": ["zoneName": $0]]] },
        ])
        let results = zones.json["zones"] as? [[String: Any]] ?? []
        #expect(zones.status == 200 && results.count == 2, "\(zones.json)")
        #expect(results.first?["serverErrorCode"] == nil && results.last?["serverErrorCode"] as? String == "QUOTA_EXCEEDED", "\(zones.json)")
        #expect(try await server.store.zones(account: "alice").map(\.zoneName).sorted() == ["Ideas", "Second"])

        let alice = server.client("alice", token: server.aliceToken)
        _ = try await alice.uploadAsset(Data(repeating: 1, count: 700_000))
        #expect(await cloudError { try await alice.uploadAsset(Data(repeating: 2, count: 700_000)) } == .quotaExceeded)
        // Two megabytes announced and none sent: answered at once, unread, and the connection
        // ended, so that the bytes still to come are never read as a request.
        let uploadPath = try await server.uploadPath()
        let (answer, took) = try await server.timedRaw("POST \(uploadPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n", waitingAtMost: 120)
        #expect(answer.hasPrefix("HTTP/1.1 413") && answer.contains("QUOTA_EXCEEDED") && answer.lowercased().contains("connection: close"), "\(answer)")
        #expect(took < .seconds(120), "the server kept the connection open \(took)")
        #expect(try await server.store.usage(account: "alice") == AccountUsage(records: 1, zones: 2, assetBytes: 700_000))
    }

    @Test("Uploads past --max-uploads at once are asked to try again (TRY_AGAIN_LATER); once one ends, the next is taken")
    func uploadsAtOnceAreCapped() async throws {
        // An idle timeout far past the deadline below: a busy test run may take seconds to
        // come back to this test, and the held upload must still hold its place then.
        let server = try await ServerFixture(socket: true, idleTimeout: .seconds(300), maximumUploads: 1)
        let alice = server.client("alice", token: server.aliceToken)
        // An upload that has sent 10 of its 1,000 bytes holds the one place (connected just
        // before it sends, so that it is never the connection idle longest).
        func holdAnUpload() async throws -> Int32 {
            let uploadPath = try await server.uploadPath()
            let held = try server.connection()
            LoopbackSocket.send("POST \(uploadPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n0123456789", on: held)
            return held
        }
        var held = try await holdAnUpload()
        // A deadline for a loaded machine only; the place is refused in milliseconds here.
        let deadline = ContinuousClock.now + .seconds(120)
        var refused: CloudError?
        while ContinuousClock.now < deadline {
            refused = await cloudError { try await alice.uploadAsset(Data("second".utf8)) }
            if refused != nil { break }
            // The held upload had not claimed its place yet, or (a loaded machine reading the
            // second first) was itself refused: hold another. What went through is deleted by
            // collection alone, so a retry is harmless.
            close(held)
            held = try await holdAnUpload()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(refused == .serviceUnavailable(retryAfter: 1), "the server's log: \(server.logLines.lines.withLock { $0 })")
        close(held)
        var taken = false
        while !taken, ContinuousClock.now < deadline {
            taken = await cloudError { try await alice.uploadAsset(Data("third".utf8)) } == nil
            if !taken { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(taken)
    }

    @Test("After an answer that ends the connection, a request sent behind it on the same connection is never run")
    func nothingIsReadAfterAnAnswerThatEndsTheConnection() async throws {
        let server = try await ServerFixture(socket: true)
        try await server.store.setQuota(AccountQuota(maxRecords: nil, maxZones: 10, maxAssetBytes: 5), account: "alice")
        let modify = "{\"operations\":[{\"operationType\":\"create\",\"zone\":{\"zoneID\":{\"zoneName\":\"Sneaky\"}}}]}"
        let uploadPath = try await server.uploadPath()
        let answer = try await server.raw(
            "POST \(uploadPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n0123456789"
                + "POST \(ServerFixture.path("zones/modify")) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.aliceToken)\r\n"
                + "Content-Length: \(modify.utf8.count)\r\n\r\n\(modify)", waitingAtMost: 20)
        #expect(answer.hasPrefix("HTTP/1.1 413") && answer.components(separatedBy: "HTTP/1.1 ").count == 2, "\(answer)")
        #expect(try await server.store.zones(account: "alice").map(\.zoneName) == ["Ideas"])
    }

    @Test("A client that stops reading an answer (a large download) is closed after the stall timeout, not kept busy for ever")
    func aClientThatStopsReadingIsClosed() async throws {
        let server = try await ServerFixture(socket: true, idleTimeout: .seconds(1))
        let data = Data((0..<(24 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let reference = try await server.client("alice", token: server.aliceToken).uploadAsset(data)
        let descriptor = try server.connection()
        defer { close(descriptor) }
        let body = "{\"fileChecksum\":\"\(reference.checksum)\"}"
        let request = "POST \(ServerFixture.path("assets/download")) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.aliceToken)\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        LoopbackSocket.send(request, on: descriptor)
        // Reading nothing until the server has closed its end, then everything there is.
        try await Poll.until("the server closed the stalled download", timeout: .seconds(30)) {
            LoopbackSocket.serverEnd(of: descriptor)?.isOpen != true
        }
        let received = LoopbackSocket.readAll(descriptor, waitingAtMost: 20).count
        #expect(received > 0 && received < data.count, "\(received) bytes of \(data.count)")
    }

    @Test("GET /healthz answers 200 while the store answers, with no credentials")
    func health() async throws {
        let server = try await ServerFixture()
        let answer = try await server.send("/healthz", method: "GET", body: Data())
        #expect(answer.status == 200 && answer.json["status"] as? String == "ok" && answer.json["store"] as? String == "ok", "\(answer.json)")
    }

    @Test("GET /metrics: requests by route and status, latency, open connections, long polls held, store errors, in Prometheus text")
    func metrics() async throws {
        let server = try await ServerFixture(socket: true)
        _ = try await server.send(Self.modify, token: server.aliceToken, json: Self.harmless)
        _ = try await server.send(Self.modify, token: nil, json: Self.harmless)
        let answer = try await server.raw("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("text/plain; version=0.0.4"), "\(answer.prefix(300))")
        for line in [
            #"ideabox_requests_total{route="records/modify",status="200"} 1"#,
            #"ideabox_requests_total{route="records/modify",status="421"} 1"#,
            #"ideabox_request_duration_seconds_count{route="records/modify"} 2"#,
            "ideabox_long_polls_held 0.0", "ideabox_store_errors_total 0",
        ] {
            #expect(answer.contains(line + "\n"), "no \(line) in:\n\(answer)")
        }
        let open = answer.split(separator: "\n").first { $0.hasPrefix("ideabox_open_connections ") }
        #expect(open.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 >= 1 } == true, "\(String(describing: open))")
        // A path a client chose never becomes a series of its own.
        _ = try await server.send("/database/1/x/y/private/\(UUID().uuidString)", token: server.aliceToken, json: [:])
        let again = try await server.raw("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(again.contains(#"route="unknown""#) && !again.contains("private/"), "\(again)")
    }

    @Test("Behind a proxy that ends TLS (X-Forwarded-Proto: https) the URLs the server hands out are https ones")
    func forwardedProtoMakesHTTPSURLs() async throws {
        let server = try await ServerFixture(socket: true)
        let body = Data(#"{"apnsEnvironment":"production"}"#.utf8)
        let path = "/database/1/\(ServedRemote.container)/production/tokens/create"
        let direct = try await server.send(path, token: server.aliceToken, body: body)
        #expect((direct.json["webcourierURL"] as? String)?.hasPrefix("http://127.0.0.1:") == true, "\(direct.json)")
        let proxied = try await server.send(path, token: server.aliceToken, headers: ["X-Forwarded-Proto": "https", "Host": "ideas.example"], body: body)
        #expect((proxied.json["webcourierURL"] as? String)?.hasPrefix("https://ideas.example/webcourier/") == true, "\(proxied.json)")
    }

    @Test("A body over 8 MiB is refused unread as BAD_REQUEST saying limitExceeded; nothing written")
    func hugeBody() async throws {
        let server = try await ServerFixture()
        let before = try server.snapshot()
        let text = String(repeating: "靈", count: 10 << 20 / 3)
        let huge = try await server.send(Self.modify, token: server.aliceToken, json: Self.save("huge", fields: ["title": ["value": text, "type": "STRING"]]))
        #expect(huge.status == 400 && Self.isLimitExceeded(huge.json), "\(huge.status) \(huge.json)")
        #expect(try server.snapshot() == before)
    }

    @Test("Broken JSON, wrong shapes and wrong types in fields: BAD_REQUEST naming the problem; nothing written",
          arguments: [
            #"{"operations": [ {"operationType": "#,
            #"[1, 2, 3]"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": "all"}"#,
            #"{"zoneID": {"zoneName": "../Ideas"}, "operations": []}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "drop", "record": {"recordName": "a"}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "", "recordType": "Idea"}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a\nb", "recordType": "Idea"}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"n": {"value": "abc", "type": "INT64"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"n": {"value": [1, "a"]}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"n": {"value": 1, "type": "GEOMETRY"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"r": {"value": {"recordName": "b", "action": "CASCADE"}, "type": "REFERENCE"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"l": {"value": [{"value": 1, "type": "INT64"}], "type": "LIST"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"l": {"value": [1, "a"], "type": "INT64_LIST"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"t": {"value": 1e300, "type": "TIMESTAMP"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": {"b": {"value": "%%%", "type": "BYTES"}}}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "create", "record": {"recordName": "a", "recordType": "Idea", "fields": []}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [{"operationType": "update", "record": {"recordName": "secret", "recordType": "Idea"}}]}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "atomic": "no", "operations": []}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "desiredKeys": "title", "operations": []}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "desiredKeys": ["ti tle"], "operations": []}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": [], "operations": []}"#,
            #"{"zoneID": {"zoneName": "Ideas"}, "operations": []} trailing"#,
          ])
    func malformed(body: String) async throws {
        let server = try await ServerFixture()
        let before = try server.snapshot()
        let answer = try await server.send(Self.modify, token: server.aliceToken, body: Data(body.utf8))
        #expect(answer.status == 400)
        #expect(answer.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect(!(answer.json["reason"] as? String ?? "").isEmpty)
        #expect(try server.snapshot() == before)
    }

    @Test("Answers carry CloudKit's types only: typed lists come back typed, and what an earlier server stored (a mixed list) goes out as a STRING_LIST")
    func cloudKitTypesOnly() async throws {
        let server = try await ServerFixture()
        let fields: [String: Any] = [
            "tags": ["value": ["a", "b"], "type": "STRING_LIST"], "counts": ["value": [1, 2], "type": "INT64_LIST"],
            "done": ["value": 1, "type": "INT64"],
        ]
        let saved = try await server.send(Self.modify, token: server.aliceToken, json: Self.save("typed", fields: fields))
        let record = try #require((saved.json["records"] as? [[String: Any]])?.first)
        let types = (record["fields"] as? [String: [String: Any]])?.mapValues { $0["type"] as? String }
        #expect(types == ["tags": "STRING_LIST", "counts": "INT64_LIST", "done": "INT64"])

        // A list of mixed items, as the previous server accepted from any client.
        let mixed = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: "mixed", zoneID: ServerFixture.zone),
            fields: ["odd": .list([.string("a"), .int64(1), .list([.int64(2)])])])
        _ = try await server.store.modify(account: "alice", saves: [RecordSave(mixed, policy: .allKeys)], deletes: [], atomic: false)
        let answer = try await server.send(Self.query, token: server.aliceToken, json: ["zoneID": Self.zone, "query": ["recordType": "Idea"]])
        let text = String(decoding: try JSONSerialization.data(withJSONObject: answer.json), as: UTF8.self)
        #expect(answer.status == 200 && !text.contains(#""BOOLEAN""#) && !text.contains(#""LIST""#), "\(text)")
        let odd = try #require((answer.json["records"] as? [[String: Any]])?.first { $0["recordName"] as? String == "mixed" })
        #expect(((odd["fields"] as? [String: [String: Any]])?["odd"])?["type"] as? String == "STRING_LIST")
    }

    @Test("Every account has _defaultZone: listed always, written to and queried without a zoneID, never deleted, no change feed; one account's default zone is its own")
    func defaultZone() async throws {
        let server = try await ServerFixture()
        let zonesPath = ServerFixture.path("zones/list")
        func zoneNames(_ token: String) async throws -> [String] {
            let answer = try await server.send(zonesPath, token: token, json: [:])
            return (answer.json["zones"] as? [[String: Any]] ?? []).compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String }
        }
        #expect(try await zoneNames(server.aliceToken) == ["_defaultZone", "Ideas"])

        let record: [String: Any] = ["recordName": "loose", "recordType": "Note", "fields": ["text": ["value": "no zone named", "type": "STRING"]]]
        let created = try await server.send(Self.modify, token: server.aliceToken, json: ["operations": [["operationType": "create", "record": record]]])
        let saved = try #require((created.json["records"] as? [[String: Any]])?.first)
        #expect(created.status == 200 && saved["recordChangeTag"] is String, "\(created.json)")
        #expect(try await zoneNames(server.aliceToken) == ["_defaultZone", "Ideas"])

        func names(_ token: String, zone: [String: Any]?) async throws -> [String] {
            var body: [String: Any] = ["query": ["recordType": "Note"]]
            if let zone { body["zoneID"] = zone }
            let answer = try await server.send(Self.query, token: token, json: body)
            #expect(answer.status == 200, "\(answer.json)")
            return (answer.json["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
        }
        #expect(try await names(server.aliceToken, zone: nil) == ["loose"])
        #expect(try await names(server.aliceToken, zone: ["zoneName": "_defaultZone"]) == ["loose"])
        #expect(try await names(server.aliceToken, zone: Self.zone) == [])
        #expect(try await names(server.bobToken, zone: nil) == [], "bob's default zone is his own")

        let before = try server.snapshot()
        let deleteDefault = try await server.send(
            ServerFixture.path("zones/modify"), token: server.aliceToken,
            json: ["operations": [["operationType": "delete", "zone": ["zoneID": ["zoneName": "_defaultZone"]]]]])
        #expect(deleteDefault.status == 400 && deleteDefault.json["serverErrorCode"] as? String == "BAD_REQUEST")
        let changes = try await server.send(ServerFixture.path("changes/zone"), token: server.aliceToken, json: ["zoneID": ["zoneName": "_defaultZone"]])
        #expect(changes.status == 400 && changes.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect(try server.snapshot() == before)
    }

    @Test("changes/zone takes Apple's zones[] and answers zones[], one entry per zone, a failing zone as its own error; records/changes and the earlier flat form answer one zone")
    func zoneChanges() async throws {
        let server = try await ServerFixture()
        let changesZone = ServerFixture.path("changes/zone")
        let answer = try await server.send(changesZone, token: server.aliceToken, json: [
            "zones": [["zoneID": ["zoneName": "Ideas"], "desiredKeys": ["title"]], ["zoneID": ["zoneName": "Missing"]]],
        ])
        #expect(answer.status == 200, "\(answer.json)")
        let zones = try #require(answer.json["zones"] as? [[String: Any]])
        #expect(zones.count == 2)
        #expect((zones[0]["zoneID"] as? [String: Any])?["zoneName"] as? String == "Ideas")
        #expect(zones[0]["syncToken"] is String && zones[0]["moreComing"] as? Bool == false)
        let records = try #require(zones[0]["records"] as? [[String: Any]])
        #expect(records.map { $0["recordName"] as? String } == ["secret"])
        #expect((records[0]["fields"] as? [String: Any]).map { Set($0.keys) } == ["title"])
        #expect(zones[1]["serverErrorCode"] as? String == "ZONE_NOT_FOUND" && zones[1]["uuid"] is String)
        #expect((zones[1]["zoneID"] as? [String: Any])?["zoneName"] as? String == "Missing")

        let flat = try await server.send(ServerFixture.path("records/changes"), token: server.aliceToken, json: ["zoneID": ["zoneName": "Ideas"]])
        #expect(flat.status == 200 && flat.json["reverse"] as? Bool == false && flat.json["zoneID"] == nil, "\(flat.json)")
        #expect((flat.json["records"] as? [[String: Any]])?.count == 1 && flat.json["syncToken"] is String)
        // The flat form IdeaBox's earlier clients sent to changes/zone still gets its answer.
        let earlier = try await server.send(changesZone, token: server.aliceToken, json: ["zoneID": ["zoneName": "Ideas"]])
        #expect(earlier.status == 200 && (earlier.json["zoneID"] as? [String: Any])?["zoneName"] as? String == "Ideas")
        #expect((earlier.json["records"] as? [[String: Any]])?.count == 1)

        for bad: [String: Any] in [["zones": []], ["zones": "Ideas"], ["zones": [["syncToken": "x"]]]] {
            let refused = try await server.send(changesZone, token: server.aliceToken, json: bad)
            #expect(refused.status == 400 && refused.json["serverErrorCode"] as? String == "BAD_REQUEST", "\(bad)")
        }
    }

    @Test("records/lookup answers each name in order: the record (its desiredKeys only) or NOT_FOUND naming it; another account's record is not found")
    func lookup() async throws {
        let server = try await ServerFixture()
        let path = ServerFixture.path("records/lookup")
        let answer = try await server.send(path, token: server.aliceToken, json: [
            "zoneID": Self.zone, "records": [["recordName": "missing"], ["recordName": "secret", "desiredKeys": []]],
        ])
        let records = try #require(answer.json["records"] as? [[String: Any]])
        #expect(answer.status == 200 && records.count == 2)
        #expect(records[0]["recordName"] as? String == "missing" && records[0]["serverErrorCode"] as? String == "NOT_FOUND")
        #expect(records[0]["uuid"] is String)
        #expect(records[1]["recordName"] as? String == "secret" && records[1]["recordChangeTag"] is String)
        #expect((records[1]["fields"] as? [String: Any])?.isEmpty == true)
        let full = try await server.send(path, token: server.aliceToken, json: ["zoneID": Self.zone, "records": [["recordName": "secret"]]])
        #expect(((full.json["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any])?.keys.sorted() == ["title"])

        let bob = try await server.send(path, token: server.bobToken, json: ["zoneID": Self.zone, "records": [["recordName": "secret"]]])
        #expect((bob.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "NOT_FOUND")
        let inDefault = try await server.send(path, token: server.aliceToken, json: ["records": [["recordName": "secret"]]])
        #expect((inDefault.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "NOT_FOUND")
        let malformed = try await server.send(path, token: server.aliceToken, json: ["records": [["name": "secret"]]])
        #expect(malformed.status == 400)
    }

    @Test("desiredKeys limits the fields of each saved record in a modify's answer; the record keeps all of them")
    func desiredKeys() async throws {
        let server = try await ServerFixture(socket: true)
        let fields: [String: Any] = ["title": ["value": "hello", "type": "STRING"], "version": ["value": 3, "type": "INT64"]]
        for (keys, expected) in [([String](), Set<String>()), (["title"], ["title"]), (nil, ["title", "version"])] {
            var body = Self.save("keys", fields: fields)
            if let keys { body["desiredKeys"] = keys }
            let answer = try await server.send(Self.modify, token: server.aliceToken, json: body)
            let record = try #require((answer.json["records"] as? [[String: Any]])?.first)
            #expect(answer.status == 200 && record["recordChangeTag"] is String)
            #expect(Set((record["fields"] as? [String: Any] ?? [:]).keys) == expected)
        }
        let stored = try await server.client("alice", token: server.aliceToken).records(in: ServerFixture.zone, ofType: "Idea")
        #expect(stored.first { $0.recordID.recordName == "keys" }?.fields.keys.sorted() == ["title", "version"])
    }

    @Test("A forged recordChangeTag is a CONFLICT carrying the server's record; an atomic request with one applies nothing")
    func forgedChangeTag() async throws {
        let server = try await ServerFixture()
        let before = try server.snapshot()
        let forged = Self.save("secret", operation: "update", changeTag: "999.999", fields: ["title": ["value": "mine now", "type": "STRING"]])
        let answer = try await server.send(Self.modify, token: server.aliceToken, json: forged)
        let result = try #require((answer.json["records"] as? [[String: Any]])?.first)
        #expect(answer.status == 200 && result["serverErrorCode"] as? String == "CONFLICT")
        #expect(((result["serverRecord"] as? [String: Any])?["fields"] as? [String: Any])?["title"] as? [String: String]
            == ["value": "alice's secret", "type": "STRING"])

        var atomic = Self.save("fresh", fields: ["title": ["value": "new", "type": "STRING"]])
        atomic["atomic"] = true
        atomic["operations"] = (atomic["operations"] as! [Any]) + (forged["operations"] as! [Any])
        let rolledBack = try await server.send(Self.modify, token: server.aliceToken, json: atomic)
        let codes = (rolledBack.json["records"] as? [[String: Any]])?.map { $0["serverErrorCode"] as? String }
        #expect(codes == ["ATOMIC_ERROR", "CONFLICT"])
        #expect(try server.snapshot() == before)
    }

    @Test("A path with an empty segment is answered as before the router: a signed URL without its ticket 401 (405 for another method), an empty environment 400, an empty database 403, anything else 404")
    func emptySegments() async throws {
        let server = try await ServerFixture()
        let container = ServedRemote.container
        let cases: [(method: String, path: String, status: Int, code: String?)] = [
            ("GET", "/webcourier/", 401, "AUTHENTICATION_FAILED"),
            ("POST", "/webcourier/", 405, nil),
            ("POST", "/assets/upload/", 401, "AUTHENTICATION_FAILED"),
            ("GET", "/assets/upload/", 405, nil),
            ("GET", "/assets/download/", 401, "AUTHENTICATION_FAILED"),
            ("POST", "/database/1/\(container)//private/records/modify", 400, "BAD_REQUEST"),
            ("POST", "/database/1/\(container)/production//records/modify", 403, "ACCESS_DENIED"),
            ("POST", "/database/1/\(container)/production/private/records//modify", 404, "NOT_FOUND"),
            ("GET", "/healthz/", 404, "NOT_FOUND"),
        ]
        for (method, path, status, code) in cases {
            let answer = try await server.send(path, method: method, token: server.aliceToken, body: Data("{}".utf8))
            #expect(answer.status == status, "\(method) \(path): \(answer.status) \(answer.json)")
            if let code { #expect(answer.json["serverErrorCode"] as? String == code, "\(method) \(path): \(answer.json)") }
        }
    }

    @Test("Unknown paths are NOT_FOUND, other databases ACCESS_DENIED, more than 200 operations BAD_REQUEST saying limitExceeded")
    func paths() async throws {
        let server = try await ServerFixture()
        let before = try server.snapshot()
        #expect(try await server.send("/database/1/iCloud.ideabox/production/private/records/drop", token: server.aliceToken, json: [:]).status == 404)
        #expect(try await server.send(ServerFixture.path("records/modify", container: "iCloud.other"), token: server.aliceToken, json: Self.harmless).status == 404)
        let publicDatabase = try await server.send(ServerFixture.path("records/modify", database: "public"), token: server.aliceToken, json: Self.harmless)
        #expect(publicDatabase.status == 403 && publicDatabase.json["serverErrorCode"] as? String == "ACCESS_DENIED")
        let operations = (0...200).map { ["operationType": "forceDelete", "record": ["recordName": "r\($0)"]] }
        let tooMany = try await server.send(Self.modify, token: server.aliceToken, json: ["zoneID": Self.zone, "operations": operations])
        #expect(tooMany.status == 400 && Self.isLimitExceeded(tooMany.json), "\(tooMany.json)")
        #expect(try server.snapshot() == before)
    }

    @Test("An asset belongs to the account that uploaded it: another account can neither fetch it nor name it in a record")
    func assetIsolation() async throws {
        let server = try await ServerFixture(socket: true)
        let alice = server.client("alice", token: server.aliceToken)
        let bob = server.client("bob", token: server.bobToken)
        let data = Data(repeating: 0x41, count: 2 << 20)
        let reference = try await alice.uploadAsset(data)
        let before = try server.snapshot()

        #expect(await cloudError { try await bob.fetchAsset(reference) } == .unknownItem)
        let download = try await server.send(ServerFixture.path("assets/download"), token: server.bobToken, json: ["fileChecksum": reference.checksum])
        #expect(download.status == 404 && download.json["serverErrorCode"] as? String == "NOT_FOUND")
        let named = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "stolen", zoneID: ServerFixture.zone), fields: ["data": .asset(reference)])
        #expect(try await bob.modify(saving: [named], deleting: [], savePolicy: .allKeys).failures == [named.recordID: .unknownItem])
        #expect(try server.snapshot() == before)
        #expect(try await server.store.asset(reference.checksum, account: "bob") == nil)
        // The same bytes uploaded by bob are bob's own copy; alice's stays hers.
        #expect(try await bob.uploadAsset(data) == reference)
        #expect(try await bob.fetchAsset(reference) == data)
        #expect(try await alice.fetchAsset(reference) == data)
    }

    @Test("Asset requests: no token is refused, an upload over 64 MiB is refused (limitExceeded) unstored, a malformed checksum BAD_REQUEST, a forged upload URL refused")
    func hostileAssets() async throws {
        let server = try await ServerFixture(socket: true)
        let upload = ServerFixture.path("assets/upload")
        let unsigned = try await server.send(upload, token: nil, body: Data("x".utf8))
        #expect(unsigned.status == 421)
        let tokens = try await server.send(upload, token: server.aliceToken, json: ["tokens": [["recordType": "Idea", "fieldName": "data"]]])
        let location = try #require((tokens.json["tokens"] as? [[String: Any]])?.first?["url"] as? String)
        let url = try #require(URL(string: location))
        #expect(url.host == "127.0.0.1" && url.path.hasPrefix("/assets/upload/"))
        let huge = try await server.send(url.path, body: Data(count: AssetReference.maximumSize + 1))
        #expect(huge.status == 400 && Self.isLimitExceeded(huge.json))
        #expect(try await server.store.asset(AssetReference(of: Data(count: AssetReference.maximumSize + 1)).checksum, account: "alice") == nil)
        for checksum in ["", "../../etc/passwd", String(repeating: "A", count: 64), String(repeating: "a", count: 65)] {
            let refused = try await server.send(ServerFixture.path("assets/download"), token: server.aliceToken, json: ["fileChecksum": checksum])
            #expect(refused.status == 400 && refused.json["serverErrorCode"] as? String == "BAD_REQUEST", "\(checksum)")
        }
        let broken = try await server.send(ServerFixture.path("assets/download"), token: server.aliceToken, body: Data("{".utf8))
        #expect(broken.status == 400)
        // Found by .ci/fuzz's router target (it answered 500 INTERNAL_ERROR): no fileChecksum,
        // or one of another type, is the client's error.
        for body in ["{}", #"{"fileChecksum": 7}"#] {
            let refused = try await server.send(ServerFixture.path("assets/download"), token: server.aliceToken, body: Data(body.utf8))
            #expect(refused.status == 400 && refused.json["serverErrorCode"] as? String == "BAD_REQUEST", "\(body)")
        }
        // A ticket with any one character changed, or cut short, authorises nothing.
        let ticket = url.lastPathComponent
        let forgeries = ticket.indices.map { "/assets/upload/" + Forgery.replacing(characterAt: ticket.distance(from: ticket.startIndex, to: $0), of: ticket) }
        #expect(forgeries.count == ticket.count && !forgeries.contains(url.path))
        for path in forgeries + [String(url.path.dropLast(5)), "/assets/upload/", "/assets/upload/x.y"] {
            let refused = try await server.send(path, body: Data("hello".utf8))
            #expect(refused.status == 401 || refused.status == 404, "\(path) \(refused.status)")
        }
        let stored = try await server.send(url.path, body: Data("hello".utf8))
        let file = try #require(stored.json["singleFile"] as? [String: Any])
        #expect(file["fileChecksum"] as? String == AssetReference(of: Data("hello".utf8)).checksum && file["size"] as? Int == 5)
        #expect(try await server.store.asset(AssetReference(of: Data("hello".utf8)).checksum, account: "alice") == Data("hello".utf8))
    }

    @Test("Each request is one log line with method, path, status and account, and never the token")
    func log() async throws {
        let server = try await ServerFixture()
        _ = try await server.send(Self.query, token: server.aliceToken, json: ["zoneID": Self.zone, "query": ["recordType": "Idea"]])
        _ = try await server.send(Self.query, token: "ibx_guess", json: [:])
        let lines = server.logLines.lines.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("2026-11-20T08:15:30.000Z POST \(Self.query) 200 ") && lines[0].hasSuffix(" ms alice"))
        #expect(lines[1].hasPrefix("2026-11-20T08:15:30.000Z POST \(Self.query) 401 ") && lines[1].hasSuffix(" ms -"))
        #expect(!lines.contains { $0.contains(server.aliceToken) || $0.contains("ibx_guess") })
    }

    /// Whether `json` is the answer for too big a request: Apple's `BAD_REQUEST`, whose
    /// reason names CloudKit's `limitExceeded` (ours), with a `uuid`.
    private static func isLimitExceeded(_ json: [String: Any]) -> Bool {
        json["serverErrorCode"] as? String == "BAD_REQUEST"
            && (json["reason"] as? String)?.hasPrefix(WebServicesError.limitExceededPrefix) == true
            && (json["uuid"] as? String).flatMap(UUID.init(uuidString:)) != nil
    }
}

extension WebServicesDatabase {
    /// Whether a request with this client's token is refused as not signed in.
    func accountStatusRefused() async -> Bool {
        await cloudError { try await records(in: ServerFixture.zone, ofType: "Idea") } == .tokenRefused
    }
}
