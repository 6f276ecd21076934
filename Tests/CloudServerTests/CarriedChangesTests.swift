import Foundation
import RemoteTestSupport
import Testing

/// Ours, beyond Apple's reference: a long poll asked with `?since=` and `?carry=records`
/// answers with the zone's changes after the token as `changes`, when they are few and
/// complete; without `carry` the answer is the notification alone, as Apple's.
@Suite(.serialized)
struct CarriedChangesTests {
    typealias Server = ConformanceServer

    /// The database's sync token now.
    static func databaseToken(_ server: ConformanceServer) async throws -> String {
        try #require(try await server.post("changes/database", [:]).json["syncToken"].string)
    }

    /// Saves records named `names` in alice's Ideas zone.
    static func save(_ server: ConformanceServer, _ names: [String]) async throws {
        let answer = try await server.post("records/modify", [
            "zoneID": ["zoneName": "Ideas"],
            "operations": names.map { ["operationType": "forceReplace", "record": ["recordName": $0, "recordType": "Idea", "fields": ["title": ["value": $0]]]] },
        ])
        #expect(answer.status == 200, "\(answer)")
    }

    /// Polls alice's webcourier URL after `since`, with `extra` query parameters.
    static func poll(_ server: ConformanceServer, since: String, _ extra: String, timeout: Int = 5) async throws -> Answer {
        let url = try await LongPollTests.webcourier(server, server.alice)
        let since = since.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? since
        return try await server.fetch(URL(string: url.absoluteString + "?timeout=\(timeout)&since=\(since)" + extra)!)
    }

    @Test("Asked to carry, the answer holds records/changes' page after the poll's token, and its syncToken stands where the page ends",
          arguments: ConformanceStore.tested)
    func carriesTheChanges(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        _ = try await LongPollTests.webcourier(server, server.alice)
        let since = try await Self.databaseToken(server)
        try await Self.save(server, ["r1", "r2"])

        let answer = try await Self.poll(server, since: since, "&carry=records")

        #expect(answer.json["zoneID"]["zoneName"] == "Ideas" && answer.json["notificationType"] == "recordZone", "\(answer)")
        let carried = answer.json["changes"]
        #expect(carried["records"].array?.compactMap { $0["recordName"].string }.sorted() == ["r1", "r2"], "\(answer)")
        #expect(carried["records"].array?.first?.field("title").string != nil)
        #expect(carried["moreComing"] == .bool(false))
        let after = try #require(carried["since"].string)
        let fetched = try await server.post("records/changes", ["zoneID": ["zoneName": "Ideas"], "syncToken": after])
        #expect(carried["syncToken"] == fetched.json["syncToken"] && carried["syncToken"].string != nil)
        #expect(fetched.recordNames.sorted() == ["r1", "r2"])
        // The next poll after the answer's token waits: nothing changed after the page.
        let next = try #require(answer.json["syncToken"].string)
        let quiet = try await Self.poll(server, since: next, "&carry=records", timeout: 1)
        #expect(quiet.json.object?.isEmpty == true, "\(quiet)")
    }

    @Test("Without carry the answer is the notification alone; too many changes are not carried; carry is records or nothing",
          arguments: ConformanceStore.tested)
    func appleAnswerOtherwise(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        _ = try await LongPollTests.webcourier(server, server.alice)
        let since = try await Self.databaseToken(server)
        try await Self.save(server, ["r1"])
        let plain = try await Self.poll(server, since: since, "")
        #expect(plain.json["zoneID"]["zoneName"] == "Ideas" && plain.json["changes"] == .null, "\(plain)")

        try await Self.save(server, (0..<21).map { "many\($0)" })
        let many = try await Self.poll(server, since: since, "&carry=records")
        #expect(many.json["zoneID"]["zoneName"] == "Ideas" && many.json["changes"] == .null, "\(many)")

        #expect(try await Self.poll(server, since: since, "&carry=everything").isError("BAD_REQUEST", status: 400))
    }
}
