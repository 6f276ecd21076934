import Foundation
import Synchronization

/// The source of "now", injected everywhere time matters so tests can fix or step it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Timestamp

    /// A clock that calls `read` for the current time.
    public init(_ read: @escaping @Sendable () -> Timestamp) {
        self.read = read
    }

    /// The current time according to this clock.
    public func now() -> Timestamp { read() }

    /// The machine's clock.
    public static let system = WallClock { Timestamp(Date()) }

    /// A clock that always answers `timestamp`.
    public static func fixed(_ timestamp: Timestamp) -> WallClock {
        WallClock { timestamp }
    }

    /// This clock shifted by `milliseconds`, to simulate a device whose clock is wrong.
    public func offset(by milliseconds: Int64) -> WallClock {
        guard milliseconds != 0 else { return self }
        return WallClock { read().adding(milliseconds: milliseconds) }
    }
}

/// A clock a test moves by hand.
public final class ManualClock: Sendable {
    private let current: Mutex<Timestamp>

    /// A clock starting at `start`.
    public init(start: Timestamp) {
        current = Mutex(start)
    }

    /// The time now.
    public var now: Timestamp { current.withLock { $0 } }

    /// Moves the clock forward by `milliseconds`.
    public func advance(by milliseconds: Int64) {
        current.withLock { $0 = $0.adding(milliseconds: milliseconds) }
    }

    /// Sets the clock to `timestamp`.
    public func set(_ timestamp: Timestamp) {
        current.withLock { $0 = timestamp }
    }

    /// A `WallClock` reading this manual clock.
    public var wallClock: WallClock {
        WallClock { [self] in now }
    }
}

/// The source of new idea ids, injected so tests get predictable ones.
public struct IdGenerator: Sendable {
    private let make: @Sendable () -> UUID

    /// A generator that calls `make` for each id.
    public init(_ make: @escaping @Sendable () -> UUID) {
        self.make = make
    }

    /// A new id.
    public func next() -> UUID { make() }

    /// Random version-4 UUIDs.
    public static let random = IdGenerator { UUID() }

    /// `00000000-0000-0000-0000-000000000001`, `…002`, and so on: readable ids for tests.
    public static func counting(from start: UInt64 = 1) -> IdGenerator {
        let counter = Mutex(start)
        return IdGenerator {
            let value = counter.withLock { value in
                defer { value += 1 }
                return value
            }
            let hex = String(value, radix: 16)
            let padded = String(repeating: "0", count: 12 - hex.count) + hex
            return UUID(uuidString: "00000000-0000-0000-0000-\(padded)")!
        }
    }
}
