import Foundation
import Synchronization

/// The source of "now", injected everywhere time matters so tests can fix or step it.
/// With the time zone a person reads its times in: the machine's for the system clock, UTC
/// for a test's unless it says otherwise, so that what a screen shows is the same anywhere.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Timestamp
    private let zone: Zone

    /// Where the time zone comes from.
    private enum Zone: Sendable {
        /// The machine's, looked up only when asked for: `TimeZone.autoupdatingCurrent` reads
        /// the zone files and fills Foundation's cache of zones, a tenth of an `ideabox add`,
        /// which shows no time (BENCHMARKS.md, "Issue 40 part 3, thirteenth session").
        case machine
        case fixed(TimeZone)
    }

    /// The time zone a person reads this clock's times in.
    public var timeZone: TimeZone {
        switch zone {
        case .machine: .autoupdatingCurrent
        case let .fixed(timeZone): timeZone
        }
    }

    /// A clock that calls `read` for the current time, read in `timeZone` (default UTC).
    public init(timeZone: TimeZone = .utc, _ read: @escaping @Sendable () -> Timestamp) {
        self.init(zone: .fixed(timeZone), read)
    }

    private init(zone: Zone, _ read: @escaping @Sendable () -> Timestamp) {
        self.read = read
        self.zone = zone
    }

    /// The current time according to this clock.
    public func now() -> Timestamp { read() }

    /// The machine's clock, read in the machine's time zone (`TZ`).
    public static let system = WallClock(zone: .machine) { Timestamp(Date()) }

    /// A clock that always answers `timestamp`.
    public static func fixed(_ timestamp: Timestamp) -> WallClock {
        WallClock { timestamp }
    }

    /// This clock shifted by `milliseconds`, to simulate a device whose clock is wrong.
    public func offset(by milliseconds: Int64) -> WallClock {
        guard milliseconds != 0 else { return self }
        return WallClock(zone: zone) { read().adding(milliseconds: milliseconds) }
    }

    /// This clock, its times read in `timeZone`.
    public func reading(in timeZone: TimeZone) -> WallClock {
        WallClock(timeZone: timeZone, read)
    }
}

extension TimeZone {
    /// Coordinated Universal Time.
    public static let utc = TimeZone(secondsFromGMT: 0)!
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
