import CloudKitModel
import IdeaBoxFoundation
import Synchronization

/// How changes of other devices reach this one.
public enum ChangeDelivery: String, Sendable, Equatable, Codable {
    /// A long poll (or the embedded remote's watch) is held: a change arrives within moments.
    case live
    /// None is held: the engine looks every second, and the listener tries again with backoff.
    case polling
}

/// Holds a device's long poll: subscribes once to the zones it syncs, then waits for a
/// change, again and again, and tells the engine which zone changed. A failure (a server
/// restart, an expired URL, the network) reports `polling` and starts over after the
/// engine's retry delays (1 s, 2 s, 4 s, then up to 30 s), or after the wait the remote asked
/// for (a server whose database is down says a short one), whichever it said. A server that
/// nothing listens for (stopped, restarting) is looked for every second instead: a refused
/// connection costs it nothing, and the first look it answers heals the device at once
/// (`onAnswer`), whatever step the engine's own backoff has reached.
///
/// It runs on a scheduler of its own; each call of the feed is a task the scheduler launches
/// (a long poll holds no thread for its minute), whose answer comes back as work on the
/// scheduler. Tests step a manual one and hand in a feed that answers at once.
public final class ChangeListener: Sendable {
    /// How long one wait may take before the feed answers that nothing changed.
    public static let pollSeconds = 60
    /// How often a listener looks for a server that nothing listens for.
    public static let refusedLookMilliseconds: Int64 = 1000

    private struct State {
        var cursor: ChangeCursor?
        var failures = 0
        /// Empty answers in a row that came back well before their time.
        var earlyEmptyAnswers = 0
        var delivery: ChangeDelivery?
        var isStopped = false
        /// Counts the tries to connect, so that a try made sooner (`retryNow`) replaces the
        /// one the backoff scheduled.
        var attempt = 0
    }

    private let feed: any ZoneChangeFeed
    private let zones: [RecordZoneID]
    private let scheduler: any SyncScheduler
    private let pollSeconds: Int
    private let onChange: @Sendable ([RecordZoneID]) -> Void
    private let onDelivery: @Sendable (ChangeDelivery) -> Void
    private let onAnswer: @Sendable () -> Void
    private let state = Mutex(State())

    /// A listener for `zones` of `feed`, on `scheduler`. It calls `onChange` with the zones
    /// that changed (and with every zone each time it starts watching, for what changed while
    /// it was not), `onDelivery` when it gains or loses its long poll, and `onAnswer` each
    /// time the remote answered it (a start, a wait's end).
    public init(
        feed: any ZoneChangeFeed, zones: [RecordZoneID], scheduler: any SyncScheduler, pollSeconds: Int = pollSeconds,
        onChange: @escaping @Sendable ([RecordZoneID]) -> Void,
        onDelivery: @escaping @Sendable (ChangeDelivery) -> Void,
        onAnswer: @escaping @Sendable () -> Void = {}
    ) {
        self.feed = feed
        self.zones = zones
        self.scheduler = scheduler
        self.pollSeconds = pollSeconds
        self.onChange = onChange
        self.onDelivery = onDelivery
        self.onAnswer = onAnswer
    }

    /// How changes arrive now; nil before the first try.
    public var delivery: ChangeDelivery? { state.withLock { $0.delivery } }

    /// Subscribes and starts waiting.
    public func start() {
        scheduleConnect(after: 0)
    }

    /// The network is back: a listener waiting out its backoff tries again now.
    public func retryNow() {
        guard state.withLock({ $0.cursor == nil && $0.delivery == .polling }) else { return }
        scheduleConnect(after: 0)
    }

    /// Stops after the wait under way (a held poll is answered within `pollSeconds`).
    public func stop() {
        state.withLock { $0.isStopped = true }
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func scheduleConnect(after milliseconds: Int64) {
        let attempt = state.withLock { state -> Int in
            state.attempt += 1
            return state.attempt
        }
        scheduler.schedule(after: milliseconds) { [self] in connect(attempt: attempt) }
    }

    private func connect(attempt: Int) {
        guard state.withLock({ !$0.isStopped && $0.attempt == attempt }) else { return }
        let (feed, zones) = (self.feed, self.zones)
        scheduler.launch({ () async -> Result<ChangeCursor, any Error> in
            do {
                return .success(try await feed.startWatching(zones))
            } catch {
                return .failure(error)
            }
        }, then: { [self] started in connected(attempt: attempt, started) })
    }

    private func connected(attempt: Int, _ started: Result<ChangeCursor, any Error>) {
        do {
            let cursor = try started.get()
            // A sooner try (`retryNow`) made while this one waited takes over: one poll at a time.
            let current = state.withLock { state -> Bool in
                guard state.attempt == attempt else { return false }
                state.cursor = cursor
                state.failures = 0
                return true
            }
            guard current else { return }
            report(.live)
            onAnswer()
            onChange(zones)
            scheduler.schedule(after: 0) { [self] in poll() }
        } catch {
            failed(error)
        }
    }

    /// Waits once, then again at once; but an empty answer that came back in less than half
    /// its time (a server answering `{}` as it shuts down, or a broken one) waits out the
    /// retry delays before the next, so that no server is asked in a tight loop.
    private func poll() {
        guard !isStopped, let cursor = state.withLock({ $0.cursor }) else { return }
        let asked = scheduler.clock.now()
        let (feed, pollSeconds) = (self.feed, self.pollSeconds)
        scheduler.launch({ () async -> Result<ZoneChangeNotice?, any Error> in
            do {
                return .success(try await feed.waitForChanges(after: cursor, seconds: pollSeconds))
            } catch {
                return .failure(error)
            }
        }, then: { [self] answer in answered(asked: asked, answer) })
    }

    private func answered(asked: Timestamp, _ answer: Result<ZoneChangeNotice?, any Error>) {
        do {
            let notice = try answer.get()
            let early = notice == nil && scheduler.clock.now().milliseconds - asked.milliseconds < Int64(pollSeconds) * 500
            let earlyInARow = state.withLock { state -> Int in
                if let notice { state.cursor = notice.cursor }
                state.earlyEmptyAnswers = early ? state.earlyEmptyAnswers + 1 : 0
                return state.earlyEmptyAnswers
            }
            onAnswer()
            // A notice of no zone only moved the cursor.
            if let notice, !notice.zones.isEmpty { onChange(notice.zones) }
            let wait = earlyInARow == 0 ? 0 : SyncEngine.retryDelay(afterFailure: earlyInARow)
            scheduler.schedule(after: wait) { [self] in poll() }
        } catch {
            failed(error)
        }
    }

    /// The wait before the next try after `failures` failures in a row, the last of them
    /// `error`: the remote's retry-after when it gave one, a second when nothing listens at
    /// the server's address, else the engine's retry delays.
    public static func retryDelay(afterFailure failures: Int, error: any Error) -> Int64 {
        if let retryAfter = (error as? CloudError)?.retryAfter { return SyncEngine.milliseconds(retryAfter) }
        if case .serverUnreachable(_, .refused)? = error as? CloudError { return refusedLookMilliseconds }
        return SyncEngine.retryDelay(afterFailure: failures)
    }

    private func failed(_ error: any Error) {
        let attempt = state.withLock { state -> Int in
            state.failures += 1
            state.cursor = nil
            return state.failures
        }
        report(.polling)
        guard !isStopped else { return }
        scheduleConnect(after: Self.retryDelay(afterFailure: attempt, error: error))
    }

    private func report(_ delivery: ChangeDelivery) {
        let changed = state.withLock { state -> Bool in
            defer { state.delivery = delivery }
            return state.delivery != delivery
        }
        if changed { onDelivery(delivery) }
    }
}
