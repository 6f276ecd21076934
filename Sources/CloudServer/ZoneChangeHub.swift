import CloudKitModel
import Foundation
import Logging
import ServerStore
import ServiceLifecycle
import Synchronization

/// Where the long polls of one server process wait, and where the changes its requests
/// commit (and those other processes over the same store announce) wake them.
///
/// A waiting poll costs an entry in a table and the closure its answer goes to, never a
/// task, a thread or a timer of its own: one sweep a second answers the polls whose time is
/// up, looking only at those due (filed by the second their time is up), not at every poll
/// held. As a service of the server, the hub listens for other processes' announcements
/// while it runs, and answers every poll at once when the server shuts down. Before it holds
/// an account's polls it tells the store so (`keepListening`, renewed every few minutes), so
/// that the other processes announce that account's changes to it, and only then.
///
/// Once a second it also asks the store which of the tokens its polls are held for are still
/// valid (`AccountStore.validAccessTokenHashes`, one read for all of them), and ends the
/// polls of a token revoked, or of an account deleted, by whatever process: they are
/// answered with nothing, and `wasRevoked` tells their route to close their connection; the
/// server's other requests of such a token are ended with their connections
/// (`endsRevokedRequests`).
final class ZoneChangeHub: Service, Sendable {
    /// What a woken poll learns: which zone of which subscription changed, and where the
    /// polls woken with it share what they read to answer (nil for a change found alone).
    struct Change: Equatable, Sendable {
        var subscriptionID: String
        var zone: RecordZoneID
        var reads: SharedPollReads?

        init(subscriptionID: String, zone: RecordZoneID, reads: SharedPollReads? = nil) {
            self.subscriptionID = subscriptionID
            self.zone = zone
            self.reads = reads
        }

        static func == (left: Change, right: Change) -> Bool {
            left.subscriptionID == right.subscriptionID && left.zone == right.zone
        }
    }

    /// Where a poll's answer goes, once: called on whichever thread answers it, so quick.
    typealias Delivery = @Sendable (Change?) -> Void

    /// Who holds a poll, as the fair shares count it: the account (in every container) and
    /// the access token its webcourier URL was made for (nil for an earlier release's URL);
    /// and the device that asked for the URL, if it named itself, whose own saves do not wake it.
    struct Holder: Hashable, Sendable {
        var account: String
        var token: String?
        var device: String? = nil
    }

    private struct Waiter {
        var holder: Holder
        /// What the poll waits for; nil while its subscriptions are read (`admit`), when a
        /// change of any zone of its database is noted in `heard`.
        var subscriptions: [ZoneSubscription]?
        /// The zones changed while the subscriptions were read, with what their polls share.
        var heard: [RecordZoneID: SharedPollReads] = [:]
        var deadline: ContinuousClock.Instant
        /// Where its answer goes, once it is asked for (`whenAnswered`).
        var delivery: Delivery?
    }

    private struct State {
        /// The waiting polls, by account and then by poll: a change looks at its account's only.
        var waiters: [String: [UUID: Waiter]] = [:]
        /// The owner of each waiting poll.
        var owners: [UUID: String] = [:]
        /// Each account's and each token's polls, oldest first.
        var byAccount: [String: [UUID]] = [:]
        var byToken: [String: [UUID]] = [:]
        /// The polls whose time is up in each second (counted from `origin`); a poll answered
        /// before its time stays filed, and is skipped when its second comes.
        var due: [Int64: [UUID]] = [:]
        /// Polls released (cancelled, or their client gone) before they were registered, with
        /// when: they are answered as they register, and forgotten after a while.
        var releasedEarly: [UUID: ContinuousClock.Instant] = [:]
        /// Polls answered before their answer was asked for, with when: taken by
        /// `whenAnswered`, and forgotten after a while (an answer never asked for).
        var answered: [UUID: (change: Change?, at: ContinuousClock.Instant)] = [:]
        /// When this process last told the store it holds each account's polls.
        var listening: [String: ContinuousClock.Instant] = [:]
        /// Polls ended because their token was revoked, until their route asks (`wasRevoked`).
        var revoked: [UUID: ContinuousClock.Instant] = [:]
        /// Whether the store has listened for other processes' changes before.
        var hasListened = false
        var stopped = false

        /// Takes the poll `id` out of the table, if it still waits.
        mutating func remove(_ id: UUID) -> Waiter? {
            guard let owner = owners.removeValue(forKey: id), let waiter = waiters[owner]?.removeValue(forKey: id) else { return nil }
            if waiters[owner]?.isEmpty == true { waiters[owner] = nil }
            Self.forget(id, in: &byAccount, at: waiter.holder.account)
            if let token = waiter.holder.token { Self.forget(id, in: &byToken, at: token) }
            return waiter
        }

        /// Answers the poll `id` with `change`, if it still waits: takes it out of the table,
        /// and returns where its answer goes, or keeps the answer until it is asked for.
        mutating func end(_ id: UUID, with change: Change?, at now: ContinuousClock.Instant) -> Delivery? {
            guard let waiter = remove(id) else { return nil }
            guard let delivery = waiter.delivery else {
                answered[id] = (change, now)
                return nil
            }
            return delivery
        }

        /// Registers `waiter` as `id` of `owner`; returns where the answers of the polls ended
        /// to make room for it go: the oldest of its account past `limits.pollsPerAccount`, and
        /// of its token past `limits.pollsPerToken`.
        mutating func add(
            _ waiter: Waiter, id: UUID, owner: String, limits: FairShareLimits, now: ContinuousClock.Instant
        ) -> [Delivery] {
            waiters[owner, default: [:]][id] = waiter
            owners[id] = owner
            byAccount[waiter.holder.account, default: []].append(id)
            var evicted: [Delivery] = []
            while let polls = byAccount[waiter.holder.account], polls.count > limits.pollsPerAccount, owners[polls[0]] != nil {
                end(polls[0], with: nil, at: now).map { evicted.append($0) }
            }
            if let token = waiter.holder.token, owners[id] != nil {
                byToken[token, default: []].append(id)
                while let polls = byToken[token], polls.count > limits.pollsPerToken, owners[polls[0]] != nil {
                    end(polls[0], with: nil, at: now).map { evicted.append($0) }
                }
            }
            return evicted
        }

        private static func forget(_ id: UUID, in table: inout [String: [UUID]], at key: String) {
            guard var ids = table[key], let index = ids.firstIndex(of: id) else { return }
            ids.remove(at: index)
            table[key] = ids.isEmpty ? nil : ids
        }
    }

    /// This process, as its announcements name it (so it ignores its own).
    let process = UUID().uuidString
    /// How long the store keeps this process listed for an account's changes.
    static let listeningLease: Duration = .seconds(600)
    /// How old a listing may be before a new poll renews it: a poll is held at most a minute,
    /// so the listing outlives every poll it was made for.
    static let listeningRenewal: Duration = .seconds(300)
    /// Where the seconds of `State.due` count from.
    private let origin = ContinuousClock.now
    private let store: any SubscriptionStore
    /// Where the held polls' tokens are checked, once a second; nil for none.
    private let accounts: (any AccountStore)?
    /// The server's connections, whose requests of a revoked token the look ends too.
    private let requests = Mutex<ConnectionRegistry?>(nil)
    private let state = Mutex(State())
    private let logger: Logger
    /// How many polls one account, and one token, may hold.
    let limits: FairShareLimits

    init(store: any SubscriptionStore, logger: Logger, limits: FairShareLimits = .defaults, accounts: (any AccountStore)? = nil) {
        self.store = store
        self.accounts = accounts
        self.logger = logger
        self.limits = limits
    }

    /// How many polls wait now.
    var waiting: Int { state.withLock { $0.owners.count } }

    /// How many of the waiting polls have what they wait for read (`admit`): past their set-up.
    var admittedWaiting: Int {
        state.withLock { state in state.waiters.values.reduce(0) { $0 + $1.values.count { $0.subscriptions != nil } } }
    }

    /// Takes the poll `id` of `owner`'s database, held for `timeout` at most, before what it
    /// waits for is read: from now on a change of any of the database's zones is noted for
    /// it, so that the reads that follow (its subscriptions, and where its zones stand) miss
    /// none. Call `keepListening(owner)` first, and `admit` (or `release`) once they are read.
    func register(id: UUID, owner: String, holder: Holder, timeout: Duration) {
        let now = ContinuousClock.now
        let deadline = now + timeout
        let waiter = Waiter(holder: holder, deadline: deadline)
        let second = self.second(of: deadline)
        let evicted = state.withLock { state -> [Delivery] in
            if state.releasedEarly.removeValue(forKey: id) != nil || state.stopped {
                state.answered[id] = (nil, now)
                return []
            }
            state.due[second, default: []].append(id)
            return state.add(waiter, id: id, owner: owner, limits: limits, now: now)
        }
        for poll in evicted { poll(nil) }
    }

    /// Tells the registered poll `id` what it waits for: a change of a zone one of
    /// `subscriptions` watches. It is answered at once with `alreadyChanged` (a change that
    /// came before it, after its device's cursor: nil for none) or with such a change noted
    /// since it registered; else it waits.
    func admit(_ id: UUID, subscriptions: [ZoneSubscription], alreadyChanged: Change?) {
        let now = ContinuousClock.now
        let woken = state.withLock { state -> (Delivery, Change)? in
            guard let owner = state.owners[id], let waiter = state.waiters[owner]?[id] else { return nil }
            let heard = subscriptions.lazy.compactMap { subscription in
                waiter.heard[subscription.zone].map { Change(subscriptionID: subscription.id, zone: subscription.zone, reads: $0) }
            }.first
            guard let change = alreadyChanged ?? heard else {
                state.waiters[owner]?[id]?.subscriptions = subscriptions
                state.waiters[owner]?[id]?.heard = [:]
                return nil
            }
            // A poll whose answer is not asked for yet has no delivery: `end` keeps its answer.
            return state.end(id, with: change, at: now).map { ($0, change) }
        }
        if let (delivery, change) = woken { delivery(change) }
    }

    /// Gives the answer of the registered poll `id` to `delivery`, once it has one (at once if
    /// it has): the change that woke it, or nil (its time was up, the server stopped, or it
    /// was released). Asked once a poll.
    func whenAnswered(_ id: UUID, _ delivery: @escaping Delivery) {
        let known = state.withLock { state -> Change?? in
            if let answered = state.answered.removeValue(forKey: id) { return .some(answered.change) }
            guard let owner = state.owners[id], state.waiters[owner]?[id] != nil else { return .some(nil) }
            state.waiters[owner]?[id]?.delivery = delivery
            return .none
        }
        if case .some(let change) = known { delivery(change) }
    }

    /// The answer of the registered poll `id`, as `whenAnswered` gives it; nil as well if this
    /// task is cancelled.
    func answer(of id: UUID) async -> Change? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                whenAnswered(id) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            release(id)
        }
    }

    /// Lists this process in the store as holding `owner`'s polls, unless it did so lately:
    /// before the poll registers, so that every change committed after it is announced here.
    /// If the store fails, the poll is held all the same: it wakes for this process's own
    /// changes, and its device's safety fetch finds the others'.
    func keepListening(_ owner: String) async {
        let now = ContinuousClock.now
        let listed = state.withLock { state in state.listening[owner].map { now - $0 < Self.listeningRenewal } ?? false }
        guard !listed else { return }
        do {
            try await store.keepListening(account: owner, process: process, for: Self.listeningLease)
            state.withLock { $0.listening[owner] = now }
        } catch let error as CloudError where error.code == .serverDatabaseUnavailable {
            // The store's outage is logged once, by the server, not once a poll.
        } catch {
            logger.warning("listing this process for an account's changes failed: \(error)")
        }
    }

    /// The whole seconds from `origin` to `instant`.
    private func second(of instant: ContinuousClock.Instant) -> Int64 {
        (instant - origin).components.seconds
    }

    /// Answers the poll `id` at once with nil (its client has gone), or if it is not yet
    /// registered, as soon as it is.
    func release(_ id: UUID) {
        let delivery = state.withLock { state -> Delivery? in
            guard let waiter = state.remove(id) else {
                if state.answered.removeValue(forKey: id) == nil { state.releasedEarly[id] = .now }
                return nil
            }
            return waiter.delivery
        }
        delivery?(nil)
    }

    /// Wakes the polls of `owner` that watch one of `zones`, but those of `device` (whose
    /// save it was, if it named itself), and tells the other processes (which wake all of
    /// theirs: an announcement names no device).
    func post(owner: String, zones: Set<RecordZoneID>, from device: String? = nil) async {
        guard !zones.isEmpty else { return }
        deliver(owner: owner, zones: zones, from: device)
        do {
            try await store.announceChanges(account: owner, zones: zones, from: process)
        } catch let error as CloudError where error.code == .serverDatabaseUnavailable {
            // Logged once, as the store's outage; the other processes wake their polls when
            // they listen again (`wakeEvery`).
        } catch {
            // The other processes' devices still converge on their next fetch.
            logger.warning("announcing a change failed: \(error)")
        }
    }

    /// Wakes the polls of `owner` that watch one of `zones`, in this process only, but those
    /// held for `device`, whose own change it is: it knows it, and the next page it fetches
    /// holds it all the same. The polls woken share what they read to answer (`SharedPollReads`).
    func deliver(owner: String, zones: Set<RecordZoneID>, from device: String? = nil) {
        var woken: [(Delivery, Change)] = []
        let reads = SharedPollReads()
        let now = ContinuousClock.now
        state.withLock { state in
            for (id, waiter) in state.waiters[owner] ?? [:] where device == nil || waiter.holder.device != device {
                guard let subscriptions = waiter.subscriptions else {
                    // Its subscriptions are being read: noted, for `admit` to look at.
                    for zone in zones where waiter.heard[zone] == nil { state.waiters[owner]?[id]?.heard[zone] = reads }
                    continue
                }
                guard let subscription = subscriptions.first(where: { zones.contains($0.zone) }) else { continue }
                let change = Change(subscriptionID: subscription.id, zone: subscription.zone, reads: reads)
                state.end(id, with: change, at: now).map { woken.append(($0, change)) }
            }
        }
        for (delivery, change) in woken { delivery(change) }
    }

    /// Wakes every poll held, as if each zone it watches had changed: the announcements of
    /// other processes made while this one was not listening (its connection to the store
    /// lost, the store down) are lost, so each device looks at its zones now (its poll's
    /// `since` then finds what changed meanwhile) rather than at its poll's time.
    func wakeEvery() {
        var woken: [(Delivery, Change?)] = []
        let now = ContinuousClock.now
        state.withLock { state in
            for waiters in state.waiters.values {
                // The polls of one database share what they read to answer.
                let reads = SharedPollReads()
                for (id, waiter) in waiters {
                    let change = waiter.subscriptions?.first.map { Change(subscriptionID: $0.id, zone: $0.zone, reads: reads) }
                    if let delivery = state.end(id, with: change, at: now) { woken.append((delivery, change)) }
                }
            }
        }
        for (delivery, change) in woken { delivery(change) }
    }

    /// Answers the polls whose time is up, looking only at those filed under the seconds
    /// begun; a poll due later in this second is filed under the next.
    func sweep(now: ContinuousClock.Instant = .now) {
        let current = second(of: now)
        let expired = state.withLock { state -> [Delivery] in
            // A release that came after its poll was answered left its id here: forget them
            // (a poll registers within moments of its release, if at all).
            if !state.releasedEarly.isEmpty { state.releasedEarly = state.releasedEarly.filter { now - $0.value < .seconds(10) } }
            // So did an answer never asked for (its request's answer could not be begun).
            if !state.answered.isEmpty { state.answered = state.answered.filter { now - $0.value.at < .seconds(10) } }
            if !state.revoked.isEmpty { state.revoked = state.revoked.filter { now - $0.value < .seconds(10) } }
            // Listings old enough to be renewed by the next poll are not needed to decide anything.
            if current % 60 == 0 { state.listening = state.listening.filter { now - $0.value < Self.listeningRenewal } }
            var expired: [Delivery] = []
            for second in state.due.keys where second <= current {
                for id in state.due.removeValue(forKey: second) ?? [] {
                    guard let owner = state.owners[id], let deadline = state.waiters[owner]?[id]?.deadline else { continue }
                    if deadline <= now {
                        state.end(id, with: nil, at: now).map { expired.append($0) }
                    } else {
                        state.due[second + 1, default: []].append(id)
                    }
                }
            }
            return expired
        }
        for delivery in expired { delivery(nil) }
    }

    /// The tokens the polls held now were made for.
    var heldTokens: Set<String> { state.withLock { Set($0.byToken.keys) } }

    /// Ends, answered with nothing, every poll held for one of `tokens` that is not in
    /// `valid`: those tokens were revoked, or their account deleted. A token that registered
    /// a poll after `tokens` was read is left for the next check.
    func endRevoked(_ tokens: Set<String>, valid: Set<String>, now: ContinuousClock.Instant = .now) {
        let ended = state.withLock { state -> [Delivery] in
            var ended: [Delivery] = []
            for token in tokens.subtracting(valid) {
                for id in state.byToken[token] ?? [] {
                    state.revoked[id] = now
                    state.end(id, with: nil, at: now).map { ended.append($0) }
                }
            }
            return ended
        }
        for delivery in ended { delivery(nil) }
    }

    /// Whether the poll `id` was ended because its token was revoked; asked once, as its
    /// answer is written.
    func wasRevoked(_ id: UUID) -> Bool {
        state.withLock { $0.revoked.removeValue(forKey: id) != nil }
    }

    /// Also ends, at each look, the other requests being served for a revoked token (a body
    /// or an upload being sent, an answer being written): `registry` closes their connections.
    func endsRevokedRequests(on registry: ConnectionRegistry) {
        requests.withLock { $0 = registry }
    }

    /// Asks the store which tokens of the polls held (and of the requests being served, see
    /// `endsRevokedRequests`) are still valid, ends the polls of the others and closes the
    /// others' connections. A store that does not answer ends nothing: its requests' own
    /// checks refuse a revoked token all the same.
    func checkTokens() async {
        guard let accounts else { return }
        let registry = requests.withLock { $0 }
        let polls = heldTokens, serving = registry?.servingTokens ?? []
        let tokens = polls.union(serving)
        guard !tokens.isEmpty, let valid = try? await accounts.validAccessTokenHashes(among: tokens) else { return }
        endRevoked(polls, valid: valid)
        registry?.closeServing(serving.subtracting(valid))
    }

    /// Answers every poll and takes no more.
    func stop() {
        let all = state.withLock { state in
            state.stopped = true
            defer { state = State(stopped: true) }
            return state.waiters.values.flatMap { $0.values.compactMap(\.delivery) }
        }
        for delivery in all { delivery(nil) }
    }

    /// Sweeps once a second and listens for other processes' changes until the server
    /// shuts down; then answers every poll.
    func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { [self] in
                    try? await store.listenForChanges(
                        { [self] process, owner, zone in
                            if process != self.process { deliver(owner: owner, zones: [zone]) }
                        },
                        whenListening: { [self] in
                            // Listening again: what was announced meanwhile went unheard.
                            let again = state.withLock { state in
                                defer { state.hasListened = true }
                                return state.hasListened
                            }
                            if again { wakeEvery() }
                        })
                }
                while !Task.isCancelled && !state.withLock({ $0.stopped }) {
                    try? await Task.sleep(for: .seconds(1))
                    sweep()
                    await checkTokens()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: { [self] in
            stop()
        }
    }
}
