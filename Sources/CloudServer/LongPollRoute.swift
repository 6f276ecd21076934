import CloudKitModel
import CloudWebServices
import Foundation
import Hummingbird
import HummingbirdCore
import IdeaBoxFoundation
import NIOCore
import ServerStore
import Synchronization

/// `GET /webcourier/TICKET`, the long poll behind a webcourier URL: held until a zone one
/// of the account's subscriptions watches changes, answered with CloudKit JS's notification
/// dictionary `{notificationID, notificationType: "recordZone", containerIdentifier,
/// subscriptionID, zoneID}` and (ours) the database's `syncToken` as of the answer, or with
/// `{}` after `?timeout=` seconds (1 to 60, default 60) or when the server stops. With
/// `?since=` a sync token (from `changes/database` or an earlier answer), a watched zone
/// that changed after it answers at once, so no change falls between two polls. With
/// `?carry=records` as well (ours), the answer may carry the zone's changes themselves
/// (`CarriedChanges`) and its `syncToken` then stands where they end.
struct LongPollRoute {
    /// Why a webcourier URL is refused: a ticket forged, expired, of another kind or of a
    /// token no longer valid.
    static let refusal = "This webcourier URL is not valid, or it has expired; ask tokens/create again."
    /// The longest a long poll is held (about a minute, as CloudKit's).
    static let longestTimeout: Duration = .seconds(60)

    let store: any PollSetUpStore & RecordZoneStore
    let hub: ZoneChangeHub
    let shares: FairShares
    let secret: ServerSecret
    let clock: WallClock
    /// How often a token and an account may begin a poll.
    let pace: PollPace
    let metrics: ServerMetrics

    /// Adds the route to `router`.
    func add(to router: Router<ServerRequestContext>) {
        router.group("webcourier")
            .add(
                middleware: TicketMiddleware(
                    kind: .webcourier, method: .get, refusal: Self.refusal, secret: secret, store: store, clock: clock, checksToken: false))
            .onEveryMethod(":ticket") { request, context in
                guard let ticket = context.ticket else { throw WebServicesErrorMiddleware.noSuchEndpoint }
                return try await poll(request, ticket: ticket, channel: context.channel)
            }
    }

    private func poll(_ request: Request, ticket: AssetTicket, channel: any Channel) async throws -> Response {
        let (timeout, since, carries): (Duration, DatabaseToken?, Bool)
        do {
            (timeout, since, carries) = try Self.parameters(request.uri.queryParameters)
        } catch {
            // The token is checked before the query, as for every other request.
            _ = try await setUp(ticket)
            throw error
        }
        // Paced before anything is read for it: a poll begun sooner than its token's or its
        // account's pace waits for its turn, or is refused (`THROTTLED`) if that is too far off.
        switch pace.turn(account: ticket.account, token: ticket.tokenHash) {
        case .now:
            break
        case .after(let wait):
            metrics.pollPaced(refused: false)
            try await Task.sleep(for: wait)
        case let .refused(retryAfter, pause):
            // Answered after a pause, not at once: a client that sends again the moment it
            // is answered is held to one answer a pause a connection.
            metrics.pollPaced(refused: true)
            await self.pause(pause, channel: channel)
            throw WebServicesError(
                code: "THROTTLED", reason: "This device, or its account, begins long polls faster than the server's pace; wait, then poll again.",
                retryAfter: Double(retryAfter.components.seconds + 1))
        }
        // Listed for the account's changes, then registered with the hub, before anything is
        // read: a change committed after the reads began wakes the poll, one committed before
        // is in them (`changedSince`). All of it in the request's own task (store calls).
        let (id, owner, hub, gone) = (UUID(), ticket.owner, hub, Flag())
        await hub.keepListening(owner)
        let holder = ZoneChangeHub.Holder(account: ticket.account, token: ticket.tokenHash, device: ticket.device)
        hub.register(id: id, owner: owner, holder: holder, timeout: timeout)
        // A client that has gone (closed its sending half, or the connection) takes its poll
        // with it at once, whenever it goes: its file, its place in the hub, its memory (its
        // head may never be written, nor its body run). While held, the connection may be
        // closed to make room (the account's, if it holds the most).
        shares.connections.whenClientGone(channel) {
            gone.raise()
            hub.release(id)
        }
        shares.connections.hold(channel, for: ticket.account)
        do {
            let (subscriptions, zoneTokens) = try await setUp(ticket)
            var alreadyChanged: ZoneChangeHub.Change?
            if let since {
                alreadyChanged = await Self.changedSince(
                    since, subscriptions, current: zoneTokens, owner: owner, device: ticket.device, store: store)
            }
            hub.admit(id, subscriptions: subscriptions, alreadyChanged: alreadyChanged)
        } catch {
            shares.connections.forgetClientGone(channel)
            hub.release(id)
            throw error
        }
        let route = self
        let headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        // Held by its connection: as far as Hummingbird knows, the answer is the head and an
        // empty body, and its connection's task then waits for a next request as an idle
        // one's does. The connection's `PollAnswerWriter` keeps the end back, and writes the
        // body and the end when the hub has the answer: a held poll costs the hub's entry and
        // this closure, and no suspended frames (issue 40). The answer is made (the store's
        // reads) in a task of its own.
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let later = AnswerWrittenLater.current
            later?.handOn()
            PollAnswerWriter.expectHeldAnswer(on: channel)
            hub.whenAnswered(id) { change in
                route.shares.connections.forgetClientGone(channel)
                let written: PollAnswerWriter.Written = { clientLeft in later?.written(clientLeft: clientLeft) }
                // Its client gone, or its token revoked: the connection is closed, nothing written.
                guard !gone.isRaised, !hub.wasRevoked(id) else {
                    channel.close(promise: nil)
                    return written(true)
                }
                guard let change else { return PollAnswerWriter.deliver(Self.noChange, on: channel, written: written) }
                Task(executorPreference: BlockingTaskExecutor.shared) {
                    guard let answer = await route.answer(change, ticket: ticket, since: since, carries: carries) else {
                        channel.close(promise: nil)
                        return written(true)
                    }
                    PollAnswerWriter.deliver(answer, on: channel, written: written)
                }
            }
            try await writer.finish(nil)
        })
    }

    /// The answer of a poll that ends with no change.
    private static let noChange = JSONValue.object([:]).bytes

    /// Waits `duration`, or less if the client of `channel` goes meanwhile: a refused poll's
    /// pause (up to 30 s) holds nothing once its client has closed or reset it, even when
    /// twenty thousand such polls come at once.
    private func pause(_ duration: Duration, channel: any Channel) async {
        let timer = Task { try? await Task.sleep(for: duration) }
        shares.connections.whenClientGone(channel) { timer.cancel() }
        await timer.value
        shares.connections.forgetClientGone(channel)
    }

    /// What a poll waits for, and where the zones stand as it begins to wait: the
    /// subscriptions of the ticket's database, and its zones' tokens, once its token is found
    /// to serve the ticket's account still (`AUTHENTICATION_FAILED` if not): read together, in
    /// one call to the store (`TicketMiddleware` leaves this route's token to it).
    private func setUp(_ ticket: AssetTicket) async throws -> (subscriptions: [ZoneSubscription], zoneTokens: [RecordZoneID: ChangeToken]) {
        guard let tokenHash = ticket.tokenHash else {
            // A ticket of the release before names no token: it serves only while its account
            // still holds a valid token made before the ticket was, so revoking or deleting
            // (and making the name anew) ends it.
            let issued = ticket.expires.adding(milliseconds: -AssetTicket.webcourierLifetime)
            guard try await store.accessTokens(account: ticket.account).contains(where: { $0.revoked == nil && $0.created <= issued }) else {
                throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: "This webcourier URL's account has no valid token; sign in again.")
            }
            return (try await store.subscriptions(account: ticket.owner), try await store.zoneTokens(account: ticket.owner))
        }
        let setUp = try await store.pollSetUp(accessTokenHash: tokenHash, subscriptionsOf: ticket.owner)
        guard setUp.tokenAccount == ticket.account else { throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: Self.refusal) }
        return (setUp.subscriptions, setUp.zoneTokens)
    }

    /// The answer to a poll woken by `change` (`{}` for none), as JSON: the notification, and
    /// the token to wait after next; nil if its token no longer serves its account (revoked,
    /// or the account deleted, since the hub last looked): nothing of the change goes to it.
    private func answer(_ change: ZoneChangeHub.Change?, ticket: AssetTicket, since: DatabaseToken?, carries: Bool) async -> [UInt8]? {
        guard let change else { return Self.noChange }
        if let tokenHash = ticket.tokenHash {
            guard let account = try? await store.account(forAccessTokenHash: tokenHash), account == ticket.account else { return nil }
        }
        let (store, owner) = (store, ticket.owner)
        var answer: WebServicesFormat.Object = [
            "notificationID": .string(UUID().uuidString.lowercased()),
            "notificationType": "recordZone",
            "containerIdentifier": .string(ticket.subject),
            "subscriptionID": .string(change.subscriptionID),
            "zoneID": ["zoneName": .string(change.zone.zoneName), "ownerRecordName": .string(DatabaseRoutes.userRecordName(ticket.owner))],
        ]
        // The token to wait after next: where the device stood, moved on for the zone named
        // only, so that another zone that changed too answers the next poll at once. The polls
        // woken by one change read the tokens and the carried changes once for all.
        let reads = change.reads ?? SharedPollReads()
        var carriedJSON: [UInt8]?
        if let current = await reads.zoneTokens({ try? await store.zoneTokens(account: owner) }) {
            let now = DatabaseToken(current)
            var next = since ?? now
            next.zones[change.zone.zoneName] = now.zones[change.zone.zoneName]
            if carries, let after = since?.zones[change.zone.zoneName], let carried = await reads.carriedChanges(after: after, in: change.zone, {
                await CarriedChanges.after(after, in: change.zone, owner: owner, userRecordName: DatabaseRoutes.userRecordName(owner), store: store)
            }) {
                carriedJSON = carried.json
                next.zones[change.zone.zoneName] = carried.token
            }
            answer["syncToken"] = .string(next.text)
        }
        var json = JSONValue.object(answer).bytes
        if let carriedJSON {
            // `changes`, as the polls woken with this one share it: written in as it was
            // encoded once for all of them (an object's members come in no particular order).
            json.removeLast()
            json.append(contentsOf: #","changes":"#.utf8)
            json.append(contentsOf: carriedJSON)
            json.append(UInt8(ascii: "}"))
        }
        return json
    }

    /// The first of `subscriptions` whose zone's records changed after `since` (the zones
    /// standing at `current`), as a zone
    /// subscription sees changes (Apple's fires when a record of the zone changes): a zone made
    /// after `since` that holds no change yet is no change, as its creation wakes no held poll
    /// either. Counting it made a device that took its token before its own first sync made
    /// its zones, then held a poll while they were made, fetch them after that poll's minute.
    /// Nor are changes that `device` (the one the poll's URL names, if any) wrote itself
    /// (`PollNews`): its poll, sent with its token from before its own save, is held, not
    /// answered for them, and its token moves past them in the answer that another device's
    /// change brings. A token the store does not take counts as a change: the fetch says why.
    static func changedSince(
        _ since: DatabaseToken, _ subscriptions: [ZoneSubscription], current: [RecordZoneID: ChangeToken], owner: String,
        device: String?, store: any RecordZoneStore
    ) async -> ZoneChangeHub.Change? {
        let changed = Set(since.changedZones(subscriptions.map(\.zone), current: DatabaseToken(current)))
        for subscription in subscriptions where changed.contains(subscription.zone) {
            let after = since.zones[subscription.zone.zoneName]
            let isNew = after == nil && current[subscription.zone] != nil
            if isNew || device != nil {
                let token = after.flatMap { Data(base64Encoded: $0) }.map(ChangeToken.init(data:))
                guard let writers = try? await store.changeWriters(
                    account: owner, in: subscription.zone, since: token, limit: PollNews.writersNeeded)
                else {
                    if isNew { continue }
                    return ZoneChangeHub.Change(subscriptionID: subscription.id, zone: subscription.zone)
                }
                guard PollNews.isNews(writers: writers, to: device) else { continue }
            }
            return ZoneChangeHub.Change(subscriptionID: subscription.id, zone: subscription.zone)
        }
        return nil
    }

    /// `?timeout=` (how long to hold the poll), `?since=` (the sync token to wait after) and
    /// `?carry=records` (whether the answer may carry the changes).
    private static func parameters(
        _ query: FlatDictionary<Substring, Substring>
    ) throws -> (timeout: Duration, since: DatabaseToken?, carries: Bool) {
        var timeout = longestTimeout
        if let asked = query["timeout"] {
            guard let seconds = Int(asked), (1...60).contains(seconds) else {
                throw WebServicesError.badRequest("timeout is a whole number of seconds from 1 to 60.")
            }
            timeout = .seconds(seconds)
        }
        let since = try query["since"].map { text in
            guard let token = DatabaseToken(text: String(text)) else {
                throw WebServicesError.badRequest(
                    WebServicesError.changeTokenExpiredPrefix + "since is not a sync token this server gave out; poll without it.")
            }
            return token
        }
        let carries = try query["carry"].map { value in
            guard value == "records" else { throw WebServicesError.badRequest("carry is records, or left out.") }
            return true
        } ?? false
        return (timeout, since, carries)
    }
}

/// A flag raised once, from any thread.
private final class Flag: Sendable {
    private let raised = Mutex(false)

    var isRaised: Bool { raised.withLock { $0 } }

    func raise() {
        raised.withLock { $0 = true }
    }
}
