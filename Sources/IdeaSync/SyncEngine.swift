import CloudKitModel
import Synchronization

/// The background sync loop. Every trigger (launch, a local change, `s`, the network
/// coming back, a notification, the timer) asks for a sync at some time; the earliest
/// request wins and the rest fold into it, and syncs run one at a time on the scheduler.
/// The loop crosses into async in one place: a sync (or an overwrite) is a task the
/// scheduler launches, whose end comes back as work on the scheduler (`launch`); no thread
/// waits for it, and what falls due meanwhile waits for its end.
///
/// A local change (a save, done, delete, undo) is sent at once and alone: its zone only, its
/// outbox pushed with the change tags it has and no fetch first (CloudKit's way: a stale tag
/// answers `CONFLICT` with the server's record, which the conflict rule settles). What other
/// devices changed comes with a notification or the safety fetch.
///
/// While a `ChangeListener` holds a long poll (`live`), the remote says when it changed:
/// a notification syncs only the zone it names, the timer is a safety fetch every five
/// minutes, and a cheap local look every two seconds sends what other processes of this
/// profile queued. Without one (`polling`), the engine looks every second.
///
/// A failure is retried after 1 s, 2 s, then 4 s (or when the remote's retry-after says),
/// then more slowly, up to 30 s (`retryDelay(afterFailure:)`). Any answer of the remote heals a
/// failure at once: the long poll coming back (`remoteAnswered`) makes the engine sync now,
/// and a sync that works after a failure tells the listener (`onHealed`) to stop waiting out
/// its own backoff. While a failure is waited out, the retries are quiet: the bar keeps
/// saying what failed, never a `Syncing` that cannot be so. Offline, signed out, quota and a
/// wrong account put sync in local mode until a trigger finds things changed; a new sign-in
/// (`followAccount`) is such a trigger, noticed within two seconds.
public final class SyncEngine: Sendable {
    struct State {
        var status: SyncStatus = .starting
        var nextRunDue: Int64?
        /// The retry-after of the server's last answer: no sync starts before it.
        var notBefore: Int64?
        var generation = 0
        var retryAttempt = 0
        var hasCheckedIntegrity = false
        var lastFailure: SyncFailure?
        var isStopped = false
        var companionsPending: [CompanionPending] = []
        /// What the next sync covers: everything, or only the zones notifications named.
        var scope = SyncScope.zones([])
        /// Whether every request folded into the next sync was a local change: it then only
        /// sends, without fetching first.
        var scheduledRunOnlySends = false
        /// Whether the next sync is the idle look, which a sooner request replaces.
        var scheduledRunIsIdle = false
        /// When a sync of everything last succeeded: the safety fetch counts from it, so that
        /// notifications coming more often than it never put it off.
        var lastFullSync: Int64?
        var delivery: ChangeDelivery?
        var isLooking = false
        /// Looks in a row that found the device locked.
        var lockedLooks = 0
        /// What says, without the network, that the device may have been unlocked; and what
        /// it said at the last look.
        var unlockSignal: (@Sendable () -> Int64?)?
        var unlockSeen: Int64?
        var isWatchingUnlock = false
        /// What says, without the network, which account the device is signed in to (the
        /// account file's version); and what it said at the last look.
        var accountSignal: (@Sendable () -> Int64?)?
        var accountSeen: Int64?
        /// Whether a person asked for the next sync (`s`, the network back): only such a sync
        /// says `Syncing` while a failure is being waited out or sync is in local mode.
        var scheduledRunIsExplicit = false
        /// Whether a sync or an overwrite is under way (its task launched, its end not yet
        /// handled); what would start meanwhile waits in `waiting`, in order.
        var isRunning = false
        var waiting: [@Sendable () -> Void] = []
    }

    private let session: SyncSession
    private let companions: [any SyncCompanion]
    let scheduler: any SyncScheduler
    private let onStatus: @Sendable (SyncStatus) -> Void
    private let onSynced: @Sendable (SyncReport) -> Void
    private let onHealed: @Sendable () -> Void
    let state = Mutex(State())

    /// An engine running `session`, then each of `companions`, on `scheduler`, reporting
    /// each new status to `onStatus`, what each successful sync did with the ideas to
    /// `onSynced`, and each sync that worked after a failure to `onHealed` (all called on the
    /// scheduler's queue).
    public init(
        session: SyncSession, companions: [any SyncCompanion] = [], scheduler: any SyncScheduler,
        onStatus: @escaping @Sendable (SyncStatus) -> Void = { _ in }, onSynced: @escaping @Sendable (SyncReport) -> Void = { _ in },
        onHealed: @escaping @Sendable () -> Void = {}
    ) {
        self.session = session
        self.companions = companions
        self.scheduler = scheduler
        self.onStatus = onStatus
        self.onSynced = onSynced
        self.onHealed = onHealed
    }

    /// What sync is doing now.
    public var status: SyncStatus { state.withLock { $0.status } }

    /// The names of the companions, in the order they run.
    public var companionNames: [String] { companions.map(\.name) }

    /// The companions with local changes waiting to be sent, as of the last sync or failure.
    public var companionsPending: [CompanionPending] { state.withLock { $0.companionsPending } }

    /// How changes of other devices arrive; nil if nothing listens for them.
    public var delivery: ChangeDelivery? { state.withLock { $0.delivery } }

    /// Launch: syncs now, then checks this device against the remote.
    public func start() {
        request(after: 0)
    }

    /// A notification: `zones` changed on the remote; syncs them now.
    public func changesArrived(in zones: [RecordZoneID]) {
        request(after: 0, scope: .zones(Set(zones)))
    }

    /// The listener gained or lost its long poll: the timer becomes the slow safety fetch,
    /// or the one-second look again. A long poll lost is looked into at once, quietly: a
    /// server gone is named within moments, and the bar never says `polling` of a server that
    /// does not answer.
    public func deliveryChanged(_ delivery: ChangeDelivery) {
        let (startLooking, wasLive) = state.withLock { state -> (Bool, Bool) in
            let wasLive = state.delivery == .live
            state.delivery = delivery
            defer { if delivery == .live { state.isLooking = true } }
            return (delivery == .live && !state.isLooking, wasLive)
        }
        if startLooking {
            scheduler.schedule(after: Self.localLookMilliseconds) { [self] in lookLocally() }
        }
        if delivery == .polling {
            request(after: wasLive ? 0 : Self.periodicMilliseconds, isIdle: wasLive)
        }
    }

    /// A local change of the ideas: sends the outbox now, with whatever else changed
    /// meanwhile, without fetching first and without the companions.
    public func localChangeHappened() {
        request(after: 0, scope: .zones([session.zone]), onlySends: true)
    }

    /// `s` or `ideabox sync`: syncs now, with a fresh set of retries.
    public func syncNow() {
        state.withLock { $0.retryAttempt = 0 }
        request(after: 0, isExplicit: true)
    }

    /// The network came back (or went away): look now.
    public func networkChanged() {
        state.withLock { $0.retryAttempt = 0 }
        request(after: 0, isExplicit: true)
    }

    /// The remote answered a request of someone else's (the long poll, held or starting
    /// again): whatever failure of the remote the engine is waiting out is over, so it syncs
    /// now, with a fresh set of retries, rather than at the next step of its backoff. A
    /// server's retry-after still holds. Nothing happens while no such failure is waited out.
    public func remoteAnswered() {
        let wasFailing = state.withLock { state -> Bool in
            guard case .transient? = state.lastFailure, !state.isStopped else { return false }
            state.retryAttempt = 0
            return true
        }
        if wasFailing { request(after: 0) }
    }

    /// "Overwrite remote with local", on the sync queue: afterwards the remote holds
    /// exactly this device's ideas, and the other devices follow.
    public func overwriteRemote() {
        scheduler.schedule(after: 0) { [self] in startOverwrite() }
    }

    private func startOverwrite() {
        guard claim(orWait: { [self] in startOverwrite() }) else { return }
        publish(.syncing(pending: session.pendingCount()))
        scheduler.launch({ [session] () async -> SyncFailure? in
            do throws(SyncFailure) {
                _ = try await session.overwriteRemote()
                return nil
            } catch {
                return error
            }
        }, then: { [self] failure in
            if let failure {
                handle(failure)
            } else {
                publish(.synced(lastSync: scheduler.clock.now()))
                requestIdleSync()
            }
            release()
        })
    }

    /// "Overwrite remote with local" for the companion named `name` (the library), on the
    /// sync queue, with the ideas' failure handling.
    public func overwriteRemote(companionNamed name: String) {
        guard let companion = companions.first(where: { $0.name == name }) else { return }
        scheduler.schedule(after: 0) { [self] in startOverwrite(of: companion) }
    }

    private func startOverwrite(of companion: any SyncCompanion) {
        guard claim(orWait: { [self] in startOverwrite(of: companion) }) else { return }
        publish(.syncing(pending: session.pendingCount()))
        scheduler.launch({ () async -> SyncFailure? in
            do throws(SyncFailure) {
                try await Self.asSyncFailure { try await companion.overwriteRemote() }
                return nil
            } catch {
                return error
            }
        }, then: { [self] failure in
            refreshCompanionsPending()
            if let failure {
                handle(failure)
            } else {
                publish(.synced(lastSync: scheduler.clock.now()))
                requestIdleSync()
            }
            release()
        })
    }

    /// Whether work may start now, nothing being under way: then it is, until `release`.
    /// Otherwise `start` waits for the end of what is under way.
    private func claim(orWait start: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.isRunning else {
                state.waiting.append(start)
                return false
            }
            state.isRunning = true
            return true
        }
    }

    /// What was under way has ended: the first work that waited for it starts.
    private func release() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            state.isRunning = false
            return state.waiting.isEmpty ? nil : state.waiting.removeFirst()
        }
        next?()
    }

    /// Stops scheduling; a sync under way finishes.
    public func stop() {
        state.withLock { $0.isStopped = true }
    }

    /// Asks for the idle engine's next look: in a second while polling, in five minutes
    /// (the safety fetch) while a long poll is held.
    private func requestIdleSync() {
        guard delivery == .live else { return request(after: Self.periodicMilliseconds, isIdle: true) }
        let now = scheduler.clock.now().milliseconds
        let due = (state.withLock { $0.lastFullSync } ?? now) + Self.safetyMilliseconds
        request(after: due - now, isIdle: true)
    }

    /// While a long poll is held, sends what this profile's other processes queued (the
    /// outbox, as a local change here is sent: without a fetch; the library folder) every two
    /// seconds; a failing engine is left to its retries.
    private func lookLocally() {
        let keepLooking = state.withLock { state -> Bool in
            state.isLooking = state.delivery == .live && !state.isStopped
            return state.isLooking
        }
        guard keepLooking else { return }
        defer { scheduler.schedule(after: Self.localLookMilliseconds) { [self] in lookLocally() } }
        guard case .synced = status else { return }
        var zones = Set<RecordZoneID>()
        if session.pendingCount() > 0 { zones.insert(session.zone) }
        for companion in companions where (companion.pendingCount() ?? 0) > 0 {
            zones.insert(companion.zone)
        }
        if !zones.isEmpty { request(after: 0, scope: .zones(zones), onlySends: true) }
    }

    /// Asks for a sync of `scope` in `milliseconds` (not before a retry-after the server
    /// asked for), unless one is already due sooner; the scopes of folded requests add up,
    /// apart from the idle look's, which only stands while nothing sooner is asked for. A
    /// sync only sends if every request folded into it asked for that (`onlySends`).
    func request(
        after milliseconds: Int64, scope: SyncScope = .everything, isIdle: Bool = false, onlySends: Bool = false, isExplicit: Bool = false
    ) {
        let now = scheduler.clock.now().milliseconds
        let scheduled: (generation: Int, due: Int64)? = state.withLock { state in
            guard !state.isStopped else { return nil }
            if isExplicit { state.scheduledRunIsExplicit = true }
            let due = max(now + max(0, milliseconds), state.notBefore ?? now)
            if let next = state.nextRunDue, next <= due {
                if !isIdle {
                    state.scheduledRunOnlySends = !state.scheduledRunIsIdle && state.scheduledRunOnlySends && onlySends
                    state.scope.add(scope)
                    state.scheduledRunIsIdle = false
                }
                return nil
            }
            if state.nextRunDue == nil || state.scheduledRunIsIdle {
                state.scope = scope
                state.scheduledRunOnlySends = onlySends
            } else {
                state.scope.add(scope)
                state.scheduledRunOnlySends = state.scheduledRunOnlySends && onlySends
            }
            state.scheduledRunIsIdle = isIdle
            state.nextRunDue = due
            state.generation += 1
            return (state.generation, due)
        }
        guard let scheduled else { return }
        scheduler.schedule(after: scheduled.due - now) { [self] in
            run(generation: scheduled.generation)
        }
    }

    private func run(generation: Int) {
        guard claim(orWait: { [self] in self.run(generation: generation) }) else { return }
        let run = state.withLock { state -> (scope: SyncScope, isQuiet: Bool, onlySends: Bool, wasFailing: Bool)? in
            guard state.generation == generation, !state.isStopped else { return nil }
            state.nextRunDue = nil
            state.notBefore = nil
            defer {
                state.scope = .zones([])
                state.scheduledRunOnlySends = false
                state.scheduledRunIsExplicit = false
            }
            let looksOrSendsOnly = state.scheduledRunIsIdle || state.scheduledRunOnlySends
            let isQuiet = !state.scheduledRunIsExplicit
                && (state.status.isWaitingOutFailure || state.scheduledRunIsIdle || (looksOrSendsOnly && !state.status.canSync))
            return (state.scope, isQuiet, state.scheduledRunOnlySends, state.lastFailure != nil)
        }
        guard let (scope, isQuiet, onlySends, wasFailing) = run else {
            release()
            return
        }
        // In local mode (locked, offline, signed out…) the look every two seconds, and a local
        // change sent, are quiet: the bar keeps saying why nothing is sent (and `sync --watch`
        // prints it once) until something changed, never a "Syncing" that cannot be so. So are
        // the idle looks, and the retries of a failure (a server down): the bar keeps naming
        // it until one works. `s` still says it tries.
        if !isQuiet { publish(.syncing(pending: session.pendingCount())) }
        scheduler.launch({ [self] () async -> Result<SyncReport, SyncFailure> in
            do throws(SyncFailure) {
                var report = SyncReport()
                if scope.covers(session.zone) {
                    report = onlySends ? try await session.send() : try await session.run()
                } else {
                    try await session.checkAccount()
                }
                for companion in companions where scope.covers(companion.zone) {
                    try await Self.asSyncFailure { try await companion.sync() }
                }
                let firstSuccess = state.withLock { state -> Bool in
                    defer { state.hasCheckedIntegrity = true }
                    return !state.hasCheckedIntegrity
                }
                if firstSuccess {
                    _ = try? await session.checkIntegrity()
                }
                return .success(report)
            } catch {
                // Every step throws a `SyncFailure` only.
                return .failure(error)
            }
        }, then: { [self] outcome in
            refreshCompanionsPending()
            switch outcome {
            case .success(let report):
                state.withLock { state in
                    state.retryAttempt = 0
                    state.lockedLooks = 0
                    state.lastFailure = nil
                    if scope == .everything { state.lastFullSync = scheduler.clock.now().milliseconds }
                }
                publish(.synced(lastSync: scheduler.clock.now()))
                onSynced(report)
                if wasFailing { onHealed() }
                requestIdleSync()
            case .failure(let failure):
                handle(failure)
            }
            release()
        })
    }

    /// Runs a companion's `work`, turning what it throws into the `SyncFailure` it means.
    private static func asSyncFailure(_ work: () async throws -> Void) async throws(SyncFailure) {
        do {
            try await work()
        } catch let error as CloudError {
            throw SyncFailure(error)
        } catch let failure as SyncFailure {
            throw failure
        } catch {
            throw SyncFailure(localError: error)
        }
    }

    private func refreshCompanionsPending() {
        guard !companions.isEmpty else { return }
        let pending = companions.compactMap { companion in
            companion.pendingCount().flatMap { $0 > 0 ? CompanionPending(name: companion.name, count: $0) : nil }
        }
        state.withLock { $0.companionsPending = pending }
    }

    private func handle(_ failure: SyncFailure) {
        let now = scheduler.clock.now()
        let isNew = state.withLock { state -> Bool in
            defer { state.lastFailure = failure }
            return state.lastFailure != failure
        }
        if isNew {
            session.recordFailure(failure)
        }
        switch failure {
        case .offline:
            publish(.offline(pending: session.pendingCount()))
            request(after: Self.localModeMilliseconds, isIdle: true)
        case .notSignedIn:
            publish(.notSignedIn)
            request(after: Self.localModeMilliseconds, isIdle: true)
        case .signedOutByServer:
            publish(.signedOutByServer)
            request(after: Self.localModeMilliseconds, isIdle: true)
        case .signedOutByICloud:
            publish(.signedOutByICloud)
            request(after: Self.localModeMilliseconds, isIdle: true)
        case .quotaExceeded:
            publish(.quotaExceeded)
            request(after: Self.localModeMilliseconds, isIdle: true)
        case let .wrongAccount(bound, current):
            publish(.wrongAccount(bound: bound, current: current))
            request(after: Self.localModeMilliseconds, isIdle: true)
        case .locked(let keyHeldHere):
            publish(.locked(keyHeldHere: keyHeldHere))
            let looks = state.withLock { state -> Int in
                state.lockedLooks += 1
                return state.lockedLooks
            }
            request(after: Self.lockedLookDelay(afterLooks: looks), isIdle: true)
            watchForUnlock(starting: true)
        case .transient, .store, .storage:
            let attempt = state.withLock { state -> Int in
                state.retryAttempt += 1
                // A server that asked for a wait gets it from every trigger, not just the retry.
                if let retryAfter = failure.retryAfter {
                    state.notBefore = now.milliseconds + Self.milliseconds(retryAfter)
                }
                return state.retryAttempt
            }
            var delay = Self.retryDelay(afterFailure: attempt)
            if let retryAfter = failure.retryAfter {
                delay = Self.milliseconds(retryAfter)
            }
            let retryAt = now.adding(milliseconds: delay)
            if attempt <= Self.retryDelays.count {
                publish(.retrying(attempt: attempt, retryAt: retryAt, reason: failure))
            } else {
                publish(.failed(reason: failure, retryAt: retryAt))
            }
            request(after: delay)
        }
    }

    private func publish(_ status: SyncStatus) {
        let changed = state.withLock { state -> Bool in
            defer { state.status = status }
            return state.status != status
        }
        if changed { onStatus(status) }
    }
}
