import Foundation
import RemoteTestSupport
import Testing

/// Ours, beyond Apple's reference: a long poll asked with `?since=` answers at once for a
/// subscribed zone whose records changed after the token, as a zone subscription counts
/// changes (a record saved or deleted), and waits for everything else.
@Suite(.serialized)
struct LongPollSinceTests {
    /// Subscribes alice to the zone `Fresh`, which does not exist yet, and returns her
    /// webcourier URL.
    static func webcourierForAFreshZone(_ server: ConformanceServer) async throws -> URL {
        _ = try await server.post("subscriptions/modify", ["operations": [[
            "operationType": "create", "subscription": ["subscriptionType": "zone", "subscriptionID": "fresh", "zoneID": ["zoneName": "Fresh"]],
        ]]], as: server.alice)
        let token = try await server.post(
            "tokens/create", ["apnsEnvironment": "production"], as: server.alice, in: "/database/1/\(ConformanceServer.container)/production")
        return try #require(token.json["webcourierURL"].string.flatMap(URL.init(string:)))
    }

    /// Polls `url` after `since` for `timeout` seconds.
    static func poll(_ server: ConformanceServer, _ url: URL, since: String, timeout: Int) async throws -> Answer {
        let since = since.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? since
        return try await server.fetch(URL(string: url.absoluteString + "?timeout=\(timeout)&since=\(since)&carry=records")!)
    }

    @Test("A zone made after the poll's token, still empty, is no change: the poll waits (a device made its zones after taking its token, and fetched them a minute later)",
          arguments: ConformanceStore.tested)
    func aNewEmptyZoneIsNoChange(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.webcourierForAFreshZone(server)
        let since = try await CarriedChangesTests.databaseToken(server)
        let made = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Fresh"]]]]])
        #expect(made.status == 200, "\(made)")

        let started = ContinuousClock.now
        let quiet = try await Self.poll(server, url, since: since, timeout: 1)
        #expect(quiet.json.object?.isEmpty == true, "the new, empty zone answered the poll: \(quiet)")
        #expect(ContinuousClock.now - started >= .seconds(1))

        let saved = try await server.post("records/modify", [
            "zoneID": ["zoneName": "Fresh"],
            "operations": [["operationType": "create", "record": ["recordName": "first", "recordType": "Idea", "fields": ["title": ["value": "首個"]]]]],
        ])
        #expect(saved.status == 200, "\(saved)")
        let woken = try await Self.poll(server, url, since: since, timeout: 30)
        #expect(woken.json["zoneID"]["zoneName"] == "Fresh" && woken.json["subscriptionID"] == "fresh", "\(woken)")
        #expect(woken.json["changes"] == .null, "a zone the token does not name has no page to carry after it: \(woken)")
    }

    @Test("A zone emptied again after the token still counts: its deletion is a change", arguments: ConformanceStore.tested)
    func aZoneWrittenAndEmptiedCounts(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.webcourierForAFreshZone(server)
        let since = try await CarriedChangesTests.databaseToken(server)
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Fresh"]]]]])
        for operation in [["operationType": "create", "record": ["recordName": "gone", "recordType": "Idea", "fields": ["title": ["value": "x"]]]],
                          ["operationType": "forceDelete", "record": ["recordName": "gone"]]] as [[String: Any]] {
            let answer = try await server.post("records/modify", ["zoneID": ["zoneName": "Fresh"], "operations": [operation]])
            #expect(answer.status == 200, "\(answer)")
        }
        let woken = try await Self.poll(server, url, since: since, timeout: 30)
        #expect(woken.json["zoneID"]["zoneName"] == "Fresh", "\(woken)")
    }
}
