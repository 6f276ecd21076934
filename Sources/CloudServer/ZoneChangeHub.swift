import CloudKitModel
import Foundation
import Logging
import ServerStore
import ServiceLifecycle
import Synchronization

/// Where the long polls of one server process wait, and where the changes its requests
/// commit (and those other processes over the same store announce) wake them.
///
/// A waiting poll costs an entry in a table and a suspended task, never a thread or a
/// timer of its own: one sweep a second answers the polls whose time is up. As a service
/// of the server, the hub listens for other processes' announcements while it runs, and
/// answers every poll at once when the server shuts down.
final class ZoneChangeHub: Service, Sendable {
    /// What a woken poll learns: which zone of which subscription changed.
    struct Change: Equatable, Sendable {
        var subscriptionID: String
        var zone: RecordZoneID
    }

    private struct Waiter {
        var subscriptions: [ZoneSubscription]
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Change?, Never>
    }

    private struct State {
        /// The waiting polls, by account and then by poll: a change looks at its account's only.
        var waiters: [String: [UUID: Waiter]] = [:]
        /// Polls cancelled before they were registered: they are answered as they register.
        var cancelledEarly: Set<UUID> = []
        var stopped = false

        /// Takes the poll `id` of `owner` out of the table, if it still waits.
        mutating func remove(_ id: UUID, of owner: String) -> Waiter? {
            let waiter = waiters[owner]?.removeValue(forKey: id)
            if waiters[owner]?.isEmpty == true { waiters[owner] = nil }
            return waiter
        }
    }

    /// This process, as its announcements name it (so it ignores its own).
    let process = UUID().uuidString
    private let store: any SubscriptionStore
    private let state = Mutex(State())
    private let logger: Logger

    init(store: any SubscriptionStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// How many polls wait now.
    var waiting: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    /// Waits until a zone one of `subscriptions` watches changes in `owner`'s database, or
    /// `timeout` passes (nil), or the server stops (nil). `alreadyChanged` runs once the poll
    /// is registered, so a change it misses wakes the poll: a change it reports (one that
    /// came before the poll, after the device's cursor) answers the poll at once.
    func wait(
        owner: String, subscriptions: [ZoneSubscription], timeout: Duration,
        alreadyChanged: @escaping @Sendable () async -> Change? = { nil }
    ) async -> Change? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiter = Waiter(subscriptions: subscriptions, deadline: .now + timeout, continuation: continuation)
                let answeredAtOnce = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil || state.stopped { return true }
                    state.waiters[owner, default: [:]][id] = waiter
                    return false
                }
                if answeredAtOnce { return continuation.resume(returning: nil) }
                Task { [self] in
                    guard let change = await alreadyChanged() else { return }
                    state.withLock { $0.remove(id, of: owner) }?.continuation.resume(returning: change)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let waiter = state.remove(id, of: owner) else {
                    state.cancelledEarly.insert(id)
                    return nil as Waiter?
                }
                return waiter
            }
            waiter?.continuation.resume(returning: nil)
        }
    }

    /// Wakes the polls of `owner` that watch one of `zones`, and tells the other processes.
    func post(owner: String, zones: Set<RecordZoneID>) async {
        guard !zones.isEmpty else { return }
        deliver(owner: owner, zones: zones)
        do {
            try await store.announceChanges(account: owner, zones: zones, from: process)
        } catch {
            // The other processes' devices still converge on their next fetch.
            logger.warning("announcing a change failed: \(error)")
        }
    }

    /// Wakes the polls of `owner` that watch one of `zones`, in this process only.
    func deliver(owner: String, zones: Set<RecordZoneID>) {
        var woken: [(CheckedContinuation<Change?, Never>, Change)] = []
        state.withLock { state in
            for (id, waiter) in state.waiters[owner] ?? [:] {
                guard let subscription = waiter.subscriptions.first(where: { zones.contains($0.zone) }) else { continue }
                _ = state.remove(id, of: owner)
                woken.append((waiter.continuation, Change(subscriptionID: subscription.id, zone: subscription.zone)))
            }
        }
        for (continuation, change) in woken { continuation.resume(returning: change) }
    }

    /// Answers the polls whose time is up.
    func sweep(now: ContinuousClock.Instant = .now) {
        let expired = state.withLock { state -> [CheckedContinuation<Change?, Never>] in
            // A cancel that came after its poll was answered left its id here: forget them.
            state.cancelledEarly.removeAll()
            let due = state.waiters.flatMap { owner, waiters in waiters.filter { $0.value.deadline <= now }.map { (owner, $0.key) } }
            return due.compactMap { state.remove($0.1, of: $0.0)?.continuation }
        }
        for continuation in expired { continuation.resume(returning: nil) }
    }

    /// Answers every poll and takes no more.
    func stop() {
        let all = state.withLock { state in
            state.stopped = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap { $0.values.map(\.continuation) }
        }
        for continuation in all { continuation.resume(returning: nil) }
    }

    /// Sweeps once a second and listens for other processes' changes until the server
    /// shuts down; then answers every poll.
    func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { [self] in
                    try? await store.listenForChanges { [self] process, owner, zone in
                        if process != self.process { deliver(owner: owner, zones: [zone]) }
                    }
                }
                while !Task.isCancelled && !state.withLock({ $0.stopped }) {
                    try? await Task.sleep(for: .seconds(1))
                    sweep()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: { [self] in
            stop()
        }
    }
}
