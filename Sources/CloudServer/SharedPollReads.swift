import CloudKitModel
import Synchronization

/// What the long polls woken by one change read to answer, read once for all of them: the
/// account's zone tokens, and the changes carried after each zone token a device stood at.
/// The twenty devices of an account woken together then cost the store two calls, not
/// forty. Every read starts after the change was delivered (a change wakes its polls only
/// once committed), so each answer stands at least where a read of its own would have.
final class SharedPollReads: Sendable {
    private let tokens = ReadOnce<[RecordZoneID: ChangeToken]?>()
    private struct Start: Hashable {
        var zone: RecordZoneID
        var since: String
    }

    private let carried = Mutex<[Start: ReadOnce<CarriedChanges?>]>([:])

    /// The account's zone tokens, read by the first poll that asks.
    func zoneTokens(_ read: () async -> [RecordZoneID: ChangeToken]?) async -> [RecordZoneID: ChangeToken]? {
        await tokens.value(read)
    }

    /// The changes of `zone` carried after its token `since`, read by the first poll that asks.
    func carriedChanges(after since: String, in zone: RecordZoneID, _ read: () async -> CarriedChanges?) async -> CarriedChanges? {
        let once = carried.withLock { carried in
            let start = Start(zone: zone, since: since)
            if let once = carried[start] { return once }
            let once = ReadOnce<CarriedChanges?>()
            carried[start] = once
            return once
        }
        return await once.value(read)
    }
}

/// A value read once by the first task that asks; the others that ask meanwhile wait for
/// that read, suspended, and later ones take its value.
final class ReadOnce<Value: Sendable>: Sendable {
    private enum State {
        case unread
        case reading(waiting: [CheckedContinuation<Value, Never>])
        case read(Value)
    }

    private enum Turn {
        case read
        case wait
        case take(Value)
    }

    private let state = Mutex(State.unread)

    /// The value: `read` runs if no task has read it yet, else the first read's value.
    func value(_ read: () async -> Value) async -> Value {
        let turn = state.withLock { state -> Turn in
            switch state {
            case .unread:
                state = .reading(waiting: [])
                return .read
            case .reading: return .wait
            case .read(let value): return .take(value)
            }
        }
        switch turn {
        case .take(let value):
            return value
        case .read:
            let value = await read()
            let waiting = state.withLock { state -> [CheckedContinuation<Value, Never>] in
                defer { state = .read(value) }
                guard case .reading(let waiting) = state else { return [] }
                return waiting
            }
            for continuation in waiting { continuation.resume(returning: value) }
            return value
        case .wait:
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    switch state {
                    case .reading(var waiting):
                        waiting.append(continuation)
                        state = .reading(waiting: waiting)
                        return nil
                    case .read(let value):
                        return value
                    case .unread:
                        preconditionFailure("a value is waited for only while it is read")
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
