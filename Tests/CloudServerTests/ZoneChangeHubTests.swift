import CloudKitModel
@testable import CloudServer
import Foundation
import Logging
import ProcessTestSupport
import ServerStore
import SQLiteRecordStore
import Synchronization
import Testing

/// The hub's fair shares of long polls: past its account's or its token's share, the oldest
/// poll of that account or token is answered at once (its device polls again); a poll
/// released before it registered (its client gone) is answered as it registers; another
/// account's polls are never touched. Its sweep answers the polls whose time is up and no
/// other; a poll registers only once the store lists this process for its account.
struct ZoneChangeHubTests {
    private static let zone = RecordZoneID(zoneName: "Ideas")
    private static let subscriptions = [ZoneSubscription(id: "ideas", zone: zone)]

    private static func hub(pollsPerAccount: Int, pollsPerToken: Int) throws -> ZoneChangeHub {
        let store = try SQLiteRecordStore.inMemory(clock: .system)
        let limits = FairShareLimits(pollsPerAccount: pollsPerAccount, pollsPerToken: pollsPerToken, bodiesPerAccount: 1, uploadsPerAccount: 1)
        return ZoneChangeHub(store: store, logger: Logger(label: "test"), limits: limits)
    }

    /// A poll of `owner` held for `holder`, registered once this returns.
    private static func poll(_ hub: ZoneChangeHub, owner: String, _ holder: ZoneChangeHub.Holder) async throws -> Task<ZoneChangeHub.Change?, Never> {
        let before = hub.waiting
        let task = Task { await hub.wait(owner: owner, holder: holder, subscriptions: subscriptions, timeout: .seconds(60)) }
        try await Poll.until("the poll is registered") { hub.waiting > before }
        return task
    }

    @Test("Past an account's share, its oldest poll is answered at once; another account's polls wait on")
    func accountShare() async throws {
        let hub = try Self.hub(pollsPerAccount: 2, pollsPerToken: 10)
        let bob = try await Self.poll(hub, owner: "bob", .init(account: "bob", token: "b1"))
        let first = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a1"))
        // In another container, the same account: its polls count together.
        _ = try await Self.poll(hub, owner: "alice@iCloud.other", .init(account: "alice", token: "a2"))
        #expect(hub.waiting == 3)
        let before = hub.waiting
        let third = Task { await hub.wait(owner: "alice", holder: .init(account: "alice", token: "a3"), subscriptions: Self.subscriptions, timeout: .seconds(60)) }
        #expect(await first.value == nil)
        try await Poll.until("the third poll is registered") { hub.waiting == before }
        // Bob's poll still waits, and wakes on his change.
        hub.deliver(owner: "bob", zones: [Self.zone])
        #expect(await bob.value == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        hub.deliver(owner: "alice", zones: [Self.zone])
        #expect(await third.value != nil)
        hub.stop()
    }

    @Test("Issue 61: a device's own save does not wake its poll; another device's save does, and so does any save a poll of no named device")
    func ownSaveWakesNoOwnPoll() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 10)
        let phone = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a1", device: "phone"))
        let anonymous = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a2"))
        hub.deliver(owner: "alice", zones: [Self.zone], from: "phone")
        #expect(await anonymous.value == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone), "a poll of no device is woken by any save")
        #expect(hub.waiting == 1, "the phone's own save woke the phone's poll")
        hub.deliver(owner: "alice", zones: [Self.zone], from: "laptop")
        #expect(await phone.value == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        // A change that names no device (another process's announcement) wakes every poll.
        let again = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a1", device: "phone"))
        hub.deliver(owner: "alice", zones: [Self.zone])
        #expect(await again.value != nil)
        hub.stop()
    }

    @Test("Issue 60: the polls of a token the store no longer holds valid (revoked, or its account deleted) are ended, answered with nothing and marked revoked; the others wait on")
    func revokedTokensPollsEnd() async throws {
        let store = try SQLiteRecordStore.inMemory(clock: .system)
        try await store.addAccessToken(hash: "kept", account: "alice", label: "laptop")
        try await store.addAccessToken(hash: "gone", account: "alice", label: "phone")
        #expect(try await store.revokeAccessToken(account: "alice", label: "phone") == 1)
        let hub = ZoneChangeHub(store: store, logger: Logger(label: "test"), accounts: store)
        let (revoked, kept, unknown) = (UUID(), UUID(), UUID())
        for (id, token) in [(revoked, "gone"), (kept, "kept"), (unknown, "never given")] {
            hub.register(id: id, owner: "alice", holder: .init(account: "alice", token: token), timeout: .seconds(60))
            hub.admit(id, subscriptions: Self.subscriptions, alreadyChanged: nil)
        }
        #expect(hub.heldTokens == ["gone", "kept", "never given"])
        await hub.checkTokens()
        #expect(await hub.answer(of: revoked) == nil && hub.wasRevoked(revoked))
        #expect(await hub.answer(of: unknown) == nil && hub.wasRevoked(unknown))
        #expect(hub.waiting == 1 && hub.heldTokens == ["kept"])
        // A token that held no poll when the store was asked is left for the next look.
        let late = UUID()
        hub.register(id: late, owner: "alice", holder: .init(account: "alice", token: "late"), timeout: .seconds(60))
        hub.endRevoked(["kept"], valid: [])
        #expect(await hub.answer(of: kept) == nil && hub.waiting == 1 && !hub.wasRevoked(late))
        hub.stop()
    }

    @Test("Past a token's share, that token's oldest poll is answered at once")
    func tokenShare() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 1)
        let first = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a1"))
        let other = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a2"))
        let second = Task { await hub.wait(owner: "alice", holder: .init(account: "alice", token: "a1"), subscriptions: Self.subscriptions, timeout: .seconds(60)) }
        #expect(await first.value == nil)
        #expect(hub.waiting == 2)
        hub.deliver(owner: "alice", zones: [Self.zone])
        let (woken, alsoWoken) = (await other.value, await second.value)
        #expect(woken != nil && alsoWoken != nil)
    }

    @Test("A poll released (its client gone) is answered at once, and one released before it registered as it registers")
    func released() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 10)
        let id = UUID()
        let before = hub.waiting
        let held = Task { await hub.wait(id: id, owner: "alice", holder: .init(account: "alice"), subscriptions: Self.subscriptions, timeout: .seconds(60)) }
        try await Poll.until("the poll is registered") { hub.waiting > before }
        hub.release(id)
        #expect(await held.value == nil)
        #expect(hub.waiting == 0)

        let early = UUID()
        hub.release(early)
        let late = await hub.wait(id: early, owner: "alice", holder: .init(account: "alice"), subscriptions: Self.subscriptions, timeout: .seconds(60))
        #expect(late == nil)
        #expect(hub.waiting == 0)
    }

    @Test("The polls one change wakes share their reads; those of another change do not")
    func wokenTogetherShareReads() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 10)
        let first = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a1"))
        let second = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a2"))
        hub.deliver(owner: "alice", zones: [Self.zone])
        let (one, two) = (await first.value, await second.value)
        #expect(one?.reads != nil && one?.reads === two?.reads)
        let later = try await Self.poll(hub, owner: "alice", .init(account: "alice", token: "a1"))
        hub.deliver(owner: "alice", zones: [Self.zone])
        let three = await later.value
        #expect(three?.reads != nil && three?.reads !== one?.reads)
        hub.stop()
    }

    @Test("The sweep answers the polls whose time is up, each no sooner, and leaves the others waiting")
    func sweepAnswersOnlyThoseDue() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 10)
        let start = ContinuousClock.now
        let short = Task { await hub.wait(owner: "alice", holder: .init(account: "alice", token: "a1"), subscriptions: Self.subscriptions, timeout: .seconds(2)) }
        try await Poll.until("the short poll is registered") { hub.waiting == 1 }
        // The short poll's time is up between `start` + 2 s and `registered` + 2 s, however
        // long a loaded machine took to register it; the long poll's after `registered` + 60 s.
        let registered = ContinuousClock.now
        let long = try await Self.poll(hub, owner: "bob", .init(account: "bob", token: "b1"))
        hub.sweep(now: start + .seconds(1))
        #expect(hub.waiting == 2)
        hub.sweep(now: registered + .seconds(5))
        #expect(await short.value == nil)
        #expect(hub.waiting == 1)
        hub.sweep(now: registered + .seconds(59))
        #expect(hub.waiting == 1)
        hub.deliver(owner: "bob", zones: [Self.zone])
        #expect(await long.value != nil)
        #expect(hub.waiting == 0)
    }

    @Test("A poll registered before its subscriptions are read misses no change: one of a zone it turns out to watch, delivered meanwhile, answers it as it is admitted; one of another zone does not")
    func registeredBeforeItsReads() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 10)
        let library = RecordZoneID(zoneName: "Library")
        let (watching, elsewhere, alsoWatching) = (UUID(), UUID(), UUID())
        for id in [watching, elsewhere, alsoWatching] { hub.register(id: id, owner: "alice", holder: .init(account: "alice"), timeout: .seconds(60)) }
        #expect(hub.waiting == 3)
        // Committed while the three read: each is noted, none is answered yet.
        hub.deliver(owner: "alice", zones: [Self.zone])
        hub.deliver(owner: "bob", zones: [library])
        #expect(hub.waiting == 3)
        hub.admit(watching, subscriptions: [ZoneSubscription(id: "library", zone: library)] + Self.subscriptions, alreadyChanged: nil)
        hub.admit(elsewhere, subscriptions: [ZoneSubscription(id: "library", zone: library)], alreadyChanged: nil)
        hub.admit(alsoWatching, subscriptions: Self.subscriptions, alreadyChanged: nil)
        #expect(hub.waiting == 1)
        let woken = await hub.answer(of: watching)
        #expect(woken == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        #expect(woken?.reads != nil)
        #expect(await hub.answer(of: alsoWatching) == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        // The one of another zone waits for its own zone's change, as admitted.
        let waiting = Task { await hub.answer(of: elsewhere) }
        hub.deliver(owner: "alice", zones: [Self.zone])
        #expect(hub.waiting == 1)
        hub.deliver(owner: "alice", zones: [library])
        #expect(await waiting.value == ZoneChangeHub.Change(subscriptionID: "library", zone: library))
        #expect(hub.waiting == 0)
    }

    @Test("An answer decided before the poll's body waits is kept for it: a change its reads found, its time up, its share taken, the server stopping; one never taken is forgotten")
    func answeredBeforeItsBodyWaits() async throws {
        let hub = try Self.hub(pollsPerAccount: 1, pollsPerToken: 10)
        let found = UUID()
        hub.register(id: found, owner: "alice", holder: .init(account: "alice"), timeout: .seconds(60))
        hub.admit(found, subscriptions: Self.subscriptions, alreadyChanged: ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        #expect(hub.waiting == 0)
        #expect(await hub.answer(of: found) == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))

        let start = ContinuousClock.now
        let (oldest, newer) = (UUID(), UUID())
        hub.register(id: oldest, owner: "alice", holder: .init(account: "alice"), timeout: .seconds(1))
        hub.register(id: newer, owner: "alice", holder: .init(account: "alice"), timeout: .seconds(1))
        hub.admit(newer, subscriptions: Self.subscriptions, alreadyChanged: nil)
        // Past the account's share of one: the oldest is answered, though no body waits for it.
        hub.admit(oldest, subscriptions: Self.subscriptions, alreadyChanged: ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        #expect(await hub.answer(of: oldest) == nil)
        hub.sweep(now: start + .seconds(3))
        #expect(hub.waiting == 0)
        #expect(await hub.answer(of: newer) == nil)

        // A change the reads found, for a body that never came: forgotten after a while. Its
        // late body (if one ever came) is answered with no change, and its device polls again.
        let orphan = UUID()
        hub.register(id: orphan, owner: "bob", holder: .init(account: "bob"), timeout: .seconds(60))
        hub.admit(orphan, subscriptions: Self.subscriptions, alreadyChanged: ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        hub.sweep(now: .now + .seconds(11))
        #expect(await hub.answer(of: orphan) == nil)

        let stopped = UUID()
        hub.register(id: stopped, owner: "carol", holder: .init(account: "carol"), timeout: .seconds(60))
        hub.stop()
        #expect(await hub.answer(of: stopped) == nil)
        let afterStop = UUID()
        hub.register(id: afterStop, owner: "carol", holder: .init(account: "carol"), timeout: .seconds(60))
        #expect(hub.waiting == 0)
        #expect(await hub.answer(of: afterStop) == nil)
    }

    @Test("A poll released after it registered, before its body waits, is answered with nothing and leaves nothing behind")
    func releasedBeforeItsBodyWaits() async throws {
        let hub = try Self.hub(pollsPerAccount: 10, pollsPerToken: 10)
        let (reading, admitted) = (UUID(), UUID())
        for id in [reading, admitted] { hub.register(id: id, owner: "alice", holder: .init(account: "alice"), timeout: .seconds(60)) }
        hub.admit(admitted, subscriptions: Self.subscriptions, alreadyChanged: nil)
        hub.release(reading)
        hub.release(admitted)
        #expect(hub.waiting == 0)
        // Admitting a released poll changes nothing; its body is answered at once.
        hub.admit(reading, subscriptions: Self.subscriptions, alreadyChanged: ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        #expect(await hub.answer(of: reading) == nil)
        #expect(await hub.answer(of: admitted) == nil)
        #expect(hub.waiting == 0)
    }

    @Test("A poll registers only once the store lists this process for its account; a second poll of the account asks no more")
    func listedBeforeRegistering() async throws {
        let store = ListingStore()
        let hub = ZoneChangeHub(store: store, logger: Logger(label: "test"))
        let first = Task { await hub.wait(owner: "alice", holder: .init(account: "alice"), subscriptions: Self.subscriptions, timeout: .seconds(60)) }
        try await Poll.until("the hub asks the store to list it") { store.listings == ["alice"] }
        #expect(hub.waiting == 0)
        store.gate.continuation.yield()
        try await Poll.until("the poll is registered") { hub.waiting == 1 }
        let second = try await Self.poll(hub, owner: "alice", .init(account: "alice"))
        #expect(store.listings == ["alice"])
        store.gate.continuation.yield()
        _ = try await Self.poll(hub, owner: "bob", .init(account: "bob"))
        #expect(store.listings == ["alice", "bob"])
        hub.deliver(owner: "alice", zones: [Self.zone])
        #expect(await first.value != nil)
        #expect(await second.value != nil)
        hub.stop()
    }

    @Test("Listening again (a connection lost, the store down and back) wakes every poll held with a zone it watches; the first listening wakes none")
    func listeningAgainWakesEveryPoll() async throws {
        let store = RelisteningStore()
        let hub = ZoneChangeHub(store: store, logger: Logger(label: "test"))
        let running = Task { try await hub.run() }
        store.listens.continuation.yield()
        let alice = try await Self.poll(hub, owner: "alice", .init(account: "alice"))
        let bob = try await Self.poll(hub, owner: "bob", .init(account: "bob"))
        try await Poll.until("the first listening is taken") { store.taken == 1 }
        #expect(hub.waiting == 2, "the first listening wakes no poll")
        // What other processes announced meanwhile went unheard: each device looks now.
        store.listens.continuation.yield()
        #expect(await alice.value == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        #expect(await bob.value == ZoneChangeHub.Change(subscriptionID: "ideas", zone: Self.zone))
        #expect(hub.waiting == 0)
        hub.stop()
        running.cancel()
    }
}

/// A store that starts listening each time the test yields to `listens`.
private final class RelisteningStore: SubscriptionStore {
    let listens = AsyncStream<Void>.makeStream()
    private let count = Mutex(0)

    /// How many times it has started listening.
    var taken: Int { count.withLock { $0 } }

    func listenForChanges(
        _ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void, whenListening: @escaping @Sendable () -> Void
    ) async throws {
        for await _ in listens.stream {
            whenListening()
            count.withLock { $0 += 1 }
        }
    }

    func listenForChanges(_ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void) async throws {}
    func keepListening(account: String, process: String, for duration: Duration) async throws {}
    func subscriptions(account: String) async throws -> [ZoneSubscription] { [] }
    func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws {}
    func deleteSubscription(id: String, account: String) async throws -> Bool { false }
    func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws {}
}

/// A store that records each account it is asked to list this process for, and answers
/// each listing once the test lets it through `gate`.
private final class ListingStore: SubscriptionStore {
    private let asked = Mutex<[String]>([])
    let gate = AsyncStream<Void>.makeStream()

    var listings: [String] { asked.withLock { $0 } }

    func keepListening(account: String, process: String, for duration: Duration) async throws {
        asked.withLock { $0.append(account) }
        for await _ in gate.stream { break }
    }

    func subscriptions(account: String) async throws -> [ZoneSubscription] { [] }
    func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws {}
    func deleteSubscription(id: String, account: String) async throws -> Bool { false }
    func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws {}
    func listenForChanges(_ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void) async throws {}
}

extension ZoneChangeHub {
    /// Waits until a zone one of `subscriptions` watches changes in `owner`'s database, or
    /// `timeout` passes (nil), or the server stops (nil), or the poll is released (nil):
    /// `register`, `admit` and `answer(of:)` in one, as the route does for a poll whose reads
    /// found nothing.
    func wait(id: UUID = UUID(), owner: String, holder: Holder, subscriptions: [ZoneSubscription], timeout: Duration) async -> Change? {
        await keepListening(owner)
        register(id: id, owner: owner, holder: holder, timeout: timeout)
        admit(id, subscriptions: subscriptions, alreadyChanged: nil)
        return await answer(of: id)
    }
}
