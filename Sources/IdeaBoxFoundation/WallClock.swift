import Foundation
import Synchronization

/// The source of "now", injected everywhere time matters so tests can fix or step it.
/// With the time zone a person reads its times in: the machine's for the system clock, UTC
/// for a test's unless it says otherwise, so that what a screen shows is the same anywhere.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Timestamp
    private let zone: Zone
    private let readElapsed: (@Sendable () -> Int64)?

    /// Where the time zone comes from.
    private enum Zone: Sendable {
        /// The machine's, looked up only when asked for: `TimeZone.autoupdatingCurrent` reads
        /// the zone files and fills Foundation's cache of zones, a tenth of an `ideabox add`,
        /// which shows no time (BENCHMARKS.md, "Everyday commands against taskwarrior").
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

    /// A clock that calls `read` for the current time, read in `timeZone` (default UTC), and
    /// `elapsed` for a clock that only runs on, if it has one.
    public init(timeZone: TimeZone = .utc, elapsed: (@Sendable () -> Int64)? = nil, _ read: @escaping @Sendable () -> Timestamp) {
        self.init(zone: .fixed(timeZone), elapsed: elapsed, read)
    }

    private init(zone: Zone, elapsed: (@Sendable () -> Int64)? = nil, _ read: @escaping @Sendable () -> Timestamp) {
        self.read = read
        self.zone = zone
        readElapsed = elapsed
    }

    /// The current time according to this clock.
    public func now() -> Timestamp { read() }

    /// Milliseconds on a clock that setting the wall clock does not move (the machine's boot
    /// clock), if this clock has one: what tells a wall clock set right, or a process told
    /// its clock is off, from time passing.
    public func elapsed() -> Int64? { readElapsed?() }

    /// The machine's clock, read in the machine's time zone (`TZ`).
    public static let system = WallClock(zone: .machine, elapsed: Self.bootClock) { Timestamp(Date()) }

    /// Milliseconds since the machine started (`CLOCK_BOOTTIME`: it runs on in suspend).
    private static func bootClock() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// A clock that always answers `timestamp`.
    public static func fixed(_ timestamp: Timestamp) -> WallClock {
        WallClock { timestamp }
    }

    /// This clock shifted by `milliseconds`, to simulate a device whose clock is wrong.
    public func offset(by milliseconds: Int64) -> WallClock {
        guard milliseconds != 0 else { return self }
        return WallClock(zone: zone, elapsed: readElapsed) { read().adding(milliseconds: milliseconds) }
    }

    /// This clock, its times read in `timeZone`.
    public func reading(in timeZone: TimeZone) -> WallClock {
        WallClock(zone: .fixed(timeZone), elapsed: readElapsed, read)
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

    /// A `WallClock` reading this manual clock; nothing but the test moves it, so time on
    /// it only passes.
    public var wallClock: WallClock {
        WallClock(elapsed: { [self] in now.milliseconds }) { [self] in now }
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
