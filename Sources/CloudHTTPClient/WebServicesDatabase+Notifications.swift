import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1

/// Being told of changes instead of asking (CloudKit Web Services' zone subscriptions and
/// webcourier long poll): subscribe once to the zones a device syncs, then wait at the
/// webcourier URL, again and again; each answer names the zone to fetch.
extension WebServicesDatabase {
    /// The subscription id for `zone`: one per zone and account, so subscribing again
    /// (another device, another launch) saves the same subscription.
    public static func subscriptionID(for zone: RecordZoneID) -> String {
        "zone-" + zone.zoneName
    }

    /// Subscribes the account to the changes of `zones`.
    public func subscribe(to zones: [RecordZoneID]) async throws {
        let operations: [JSONValue] = zones.map { zone in
            [
                "operationType": "create",
                "subscription": [
                    "subscriptionID": .string(Self.subscriptionID(for: zone)), "subscriptionType": "zone",
                    "zoneID": WebServicesFormat.object(zone),
                ],
            ]
        }
        let answers = try await send(.subscriptionsModify, ["operations": .array(operations)])["subscriptions"]?.array
        guard let answers, answers.count == zones.count else { throw CloudError.networkFailure }
        for answer in answers {
            guard let object = answer.object else { throw CloudError.networkFailure }
            if let error = WebServicesError(object) { throw error.cloudError() }
        }
    }

    /// Where to long-poll for this account's notifications (`tokens/create`): a URL that
    /// names this client (`device`), so that its own saves wake none of its polls.
    public func webcourierURL() async throws -> URL {
        let answer = try await send(.tokensCreate, ["apnsEnvironment": .string(endpoint.environment)])
        guard let text = answer["webcourierURL"]?.string, let url = URL(string: text), ["http", "https"].contains(url.scheme) else {
            throw CloudError.networkFailure
        }
        return url
    }

    /// Waits at `url` until a subscribed zone changes (that zone) or about `seconds` pass
    /// (nil); `notAuthenticated` once the URL has expired (ask `webcourierURL()` again).
    public func waitForChange(at url: URL, seconds: Int) async throws -> RecordZoneID? {
        try await waitForChange(at: url, since: nil, seconds: seconds)?.zone
    }

    /// The database's sync token now (`changes/database` without one): a long poll given
    /// it answers at once for a zone that changes after it.
    func databaseSyncToken() async throws -> String {
        let answer = try await send(.changesDatabase, ["resultsLimit": .integer(Int64(Self.maximumOperations))])
        guard let token = answer["syncToken"]?.string else { throw CloudError.networkFailure }
        return token
    }

    /// Waits at `url` for a change after the sync token `since`: the zone and the
    /// database's sync token as of the answer, or nil if `seconds` passed first. With a
    /// token it asks the server to carry the zone's changes (ours, `carry=records`): a page
    /// carried is kept for the fetch after the token it starts from, which then needs no
    /// request. The server does not answer for this client's own saves (the URL names it:
    /// `webcourierURL`); a page it carries for another's change may hold them too, and the
    /// fetch then moves this client past them.
    func waitForChange(at url: URL, since: String?, seconds: Int) async throws -> (zone: RecordZoneID, syncToken: String?)? {
        let (status, headers, body) = try await transport.get(try Self.pollURL(url, since: since, seconds: seconds), wait: Self.pollWait(seconds))
        return try readPollAnswer(status: status, headers: headers, body: body)
    }

    /// The URL of one long poll at `url` after `since`, asking for `seconds` at most.
    private static func pollURL(_ url: URL, since: String?, seconds: Int) throws -> URL {
        try pollURL(url.absoluteString[...], since: since, seconds: seconds)
    }

    /// `pollURL(_:since:seconds:)` of the URL spelled `url`, whose query (if any) it replaces:
    /// written as text, with one parse at the end (a device polls again after every answer;
    /// a benchmark's ten thousand of them, issue 40).
    private static func pollURL(_ url: Substring, since: String?, seconds: Int) throws -> URL {
        var text = String(url.prefix { $0 != "?" && $0 != "#" })
        text += "?timeout=" + String(min(max(seconds, 1), 60))
        if let since {
            guard let encoded = since.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) else { throw CloudError.networkFailure }
            text += "&since=" + encoded + "&carry=records"
        }
        guard let pollURL = URL(string: text), pollURL.host != nil else { throw CloudError.networkFailure }
        return pollURL
    }

    /// How long a poll of `seconds` may take: the server answers at `seconds`; the margin
    /// covers a slow network.
    private static func pollWait(_ seconds: Int) -> TimeAmount {
        .seconds(Int64(seconds) + 15)
    }

    /// Reads a long poll's answer (see `waitForChange(at:since:seconds:)`), keeping the page
    /// it carried.
    private func readPollAnswer(status: Int, headers: HTTPHeaders, body: ByteBuffer) throws -> (zone: RecordZoneID, syncToken: String?)? {
        let answer = try object(try Self.success(status: status, headers: headers, body: body))
        guard let zone = answer["zoneID"] else { return nil }
        let zoneID: RecordZoneID
        do {
            zoneID = try WebServicesFormat.zoneID(zone)
        } catch {
            throw CloudError.networkFailure
        }
        // A carried page that does not read is left out: the device fetches as before.
        if let carried = answer["changes"]?.object, let after = carried["since"]?.string.flatMap({ Data(base64Encoded: $0) }),
           let changes = try? WebServicesAnswer.zoneChanges(carried, zone: zoneID)
        {
            carriedPages.keep(changes, of: zoneID, after: ChangeToken(data: after))
        }
        return (zoneID, answer["syncToken"]?.string)
    }
}

/// The feed of a served account: subscribe to the zones, take a webcourier URL and the
/// database's sync token, then long-poll with the token, so that a change between two
/// polls answers the next one at once.
extension WebServicesDatabase: ZoneChangeFeed {
    public func startWatching(_ zones: [RecordZoneID]) async throws -> ChangeCursor {
        try await subscribe(to: zones)
        let url = try await webcourierURL()
        return Self.cursor(url: url.absoluteString, syncToken: try await databaseSyncToken())
    }

    public func waitForChanges(after cursor: ChangeCursor, seconds: Int) async throws -> ZoneChangeNotice? {
        let (url, token) = try Self.parts(of: cursor)
        return Self.notice(try await waitForChange(at: url, since: token, seconds: seconds), url: url.absoluteString, token: token)
    }

    /// `waitForChanges` without a thread waiting for the answer (a benchmark's thousands of
    /// devices on one event loop): the same request, its answer read on the pool's event
    /// loop, the page it carried kept for `fetchChangesFuture` (or `fetchChanges`) to take.
    public func waitForChangesFuture(after cursor: ChangeCursor, seconds: Int) -> EventLoopFuture<ZoneChangeNotice?> {
        let pollURL: URL
        do {
            pollURL = try Self.pollURL(after: cursor, seconds: seconds)
        } catch {
            return transport.pool.client.eventLoopGroup.any().makeFailedFuture(error)
        }
        return transport.getFuture(pollURL, wait: Self.pollWait(seconds)).flatMapThrowing { [self] status, headers, body in
            try notice(answering: cursor, status: status, headers: headers, body: body)
        }
    }

    /// The URL `waitForChangesFuture(after:seconds:)` GETs: for a program that plays many
    /// devices over connections of its own, with `notice(answering:status:headers:body:)`.
    public static func pollURL(after cursor: ChangeCursor, seconds: Int) throws -> URL {
        let (url, token) = splitCursor(cursor)
        return try pollURL(url, since: token.map(String.init), seconds: seconds)
    }

    /// What the answer to the poll after `cursor` tells, as `waitForChangesFuture` reads it
    /// (a page it carried is kept for the next fetch).
    public func notice(answering cursor: ChangeCursor, status: Int, headers: HTTPHeaders, body: ByteBuffer) throws -> ZoneChangeNotice? {
        let (url, token) = Self.splitCursor(cursor)
        return Self.notice(try readPollAnswer(status: status, headers: headers, body: body), url: url, token: token)
    }

    /// The webcourier URL and the sync token a cursor spells.
    private static func parts(of cursor: ChangeCursor) throws -> (url: URL, token: String?) {
        let (text, token) = splitCursor(cursor)
        guard let url = URL(string: String(text)) else { throw CloudError.networkFailure }
        return (url, token.map(String.init))
    }

    /// The webcourier URL's text and the sync token a cursor spells, split apart.
    private static func splitCursor(_ cursor: ChangeCursor) -> (url: Substring, token: Substring?) {
        let parts = cursor.value.split(separator: " ", maxSplits: 1)
        return (parts.first ?? "", parts.count > 1 ? parts[1] : nil)
    }

    /// What a poll's answer tells the listener: the zone to fetch, and where to wait next.
    private static func notice(
        _ answer: (zone: RecordZoneID, syncToken: String?)?, url: some StringProtocol, token: (some StringProtocol)?
    ) -> ZoneChangeNotice? {
        guard let answer else { return nil }
        let syncToken = answer.syncToken ?? token.map { String($0) }
        return ZoneChangeNotice(zones: [answer.zone], cursor: cursor(url: String(url), syncToken: syncToken))
    }

    /// The webcourier URL and the sync token, spelled as one cursor.
    private static func cursor(url: String, syncToken: String?) -> ChangeCursor {
        ChangeCursor([url, syncToken].compactMap { $0 }.joined(separator: " "))
    }
}
