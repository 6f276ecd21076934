import Synchronization

/// Reads of one kind that wait in a `StoreGate`'s line, shared while they wait: a task that
/// asks for a key whose read is still waiting in line joins that read instead of waiting for
/// one of its own, and takes its value.
///
/// Only a read that has not begun is joined: it begins after the joiner asked, so its value
/// is as fresh as the joiner's own read would have been. A read that has begun is never
/// joined (a change committed between its snapshot and the asking would be missed), and a
/// read asked for then waits in line as a read of its own. When a change wakes an account's
/// twenty devices, their answers ask for its zone tokens and their next polls for their
/// set-ups within a millisecond of each other, while the gate is busiest (issue 40): the
/// reads of one key then cost the store one call.
final class WaitingReads<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A read waiting in line, the tasks that joined it, and once it is done its outcome.
    private final class Read: Sendable {
        private let state = Mutex<(joined: [CheckedContinuation<Outcome, Never>], outcome: Outcome?)>(([], nil))

        /// How many tasks wait for its outcome.
        var joinedCount: Int { state.withLock { $0.joined.count } }

        /// Waits for the outcome (at once if it is known).
        func outcome() async -> Outcome {
            await withCheckedContinuation { continuation in
                let known = state.withLock { state -> Outcome? in
                    if state.outcome == nil { state.joined.append(continuation) }
                    return state.outcome
                }
                if let known { continuation.resume(returning: known) }
            }
        }

        /// Tells every joiner, and any that joins later, `outcome`.
        func finish(_ outcome: Outcome) {
            let joined = state.withLock { state in
                state.outcome = outcome
                defer { state.joined = [] }
                return state.joined
            }
            for joiner in joined { joiner.resume(returning: outcome) }
        }
    }

    /// What a joiner is told: the read's value or error, or to read for itself (the read's
    /// own caller had gone, so it made none).
    private enum Outcome: Sendable {
        case read(Result<Value, any Error>)
        case readAlone
    }

    private let waiting = Mutex<[Key: Read]>([:])

    /// How many reads wait in line, each with the tasks that joined it.
    var count: Int { waiting.withLock { $0.count } }

    /// How many tasks have joined the reads that wait.
    var joined: Int { waiting.withLock { $0.values.reduce(0) { $0 + $1.joinedCount } } }

    /// `read`'s value for `key`, through `gate`: the value of a read of `key` still waiting in
    /// line if there is one, else of a read of this task's own (which later tasks may join
    /// while it waits).
    func value(_ key: Key, through gate: StoreGate, _ read: () async throws -> Value) async throws -> Value {
        let (mine, joinable) = waiting.withLock { waiting -> (Read, Bool) in
            if let waitingRead = waiting[key] { return (waitingRead, true) }
            let mine = Read()
            waiting[key] = mine
            return (mine, false)
        }
        if joinable {
            switch await mine.outcome() {
            case .read(let result): return try result.get()
            case .readAlone: return try await gate.run(read)
            }
        }
        var began = false
        let result: Result<Value, any Error>
        do {
            result = .success(try await gate.run {
                // Let in: from now on the read has begun, and a task asking joins no more.
                began = true
                begin(key, mine)
                return try await read()
            })
        } catch {
            result = .failure(error)
        }
        // Refused before it began (its caller had gone): its joiners read for themselves.
        if !began { begin(key, mine) }
        mine.finish(began ? .read(result) : .readAlone)
        return try result.get()
    }

    /// Takes `read` out of the reads that wait, unless a newer one stands there.
    private func begin(_ key: Key, _ read: Read) {
        waiting.withLock { waiting in
            if waiting[key] === read { waiting[key] = nil }
        }
    }
}
