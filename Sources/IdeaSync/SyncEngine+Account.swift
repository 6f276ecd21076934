import Synchronization

/// The engine's two looks without the network: at the account (a sign-in or sign-out made
/// elsewhere syncs at once with fresh retries) and, while the device is locked, at the key
/// an unlock writes (it syncs at once rather than at its next, backed-off look).
extension SyncEngine {
    /// While the device is locked, looks at `signal` every two seconds, without the network
    /// (the version of the key file `ideabox account unlock` writes, say): when what it says
    /// changes, the engine syncs at once instead of waiting for its next, backed-off look.
    public func lookForUnlock(_ signal: @escaping @Sendable () -> Int64?) {
        state.withLock { $0.unlockSignal = signal }
    }

    /// Looks at `signal` every second, without the network (the version of the account
    /// file `ideabox account sign-in` and `sign-out` write, say): when what it says changes,
    /// the engine syncs at once with a fresh set of retries, whatever it was doing or waiting
    /// out, so a running app follows a sign-in made elsewhere within two seconds.
    public func followAccount(_ signal: @escaping @Sendable () -> Int64?) {
        let seen = signal()
        state.withLock { state in
            state.accountSignal = signal
            state.accountSeen = seen
        }
        scheduler.schedule(after: Self.accountLookMilliseconds) { [self] in lookAtAccount() }
    }

    /// Looks at the unlock signal every two seconds while the device is locked; syncs at once
    /// when it changed.
    func watchForUnlock(starting: Bool = false) {
        let signal: (@Sendable () -> Int64?)? = state.withLock { state in
            guard case .locked = state.status, !state.isStopped, let signal = state.unlockSignal,
                  !(starting && state.isWatchingUnlock)
            else {
                if !starting { state.isWatchingUnlock = false }
                return nil
            }
            state.isWatchingUnlock = true
            return signal
        }
        guard let signal else { return }
        let now = signal()
        let changed = state.withLock { state -> Bool in
            defer { state.unlockSeen = now }
            return !starting && state.unlockSeen != now
        }
        if changed { request(after: 0) }
        scheduler.schedule(after: Self.localModeMilliseconds) { [self] in watchForUnlock() }
    }

    /// Looks at the account signal every second; syncs at once when it changed.
    private func lookAtAccount() {
        guard let signal = state.withLock({ $0.isStopped ? nil : $0.accountSignal }) else { return }
        let now = signal()
        let changed = state.withLock { state -> Bool in
            defer { state.accountSeen = now }
            guard state.accountSeen != now else { return false }
            state.retryAttempt = 0
            state.lockedLooks = 0
            return true
        }
        if changed { request(after: 0) }
        scheduler.schedule(after: Self.accountLookMilliseconds) { [self] in lookAtAccount() }
    }
}
