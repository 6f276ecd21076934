import Foundation
import Synchronization
import ArgumentParser

/// Timings of one operation, reported as percentiles.
struct Measurement {
    let name: String
    private(set) var samples: [Duration] = []

    init(name: String) { self.name = name }

    /// Runs `body` once and records how long it took.
    @discardableResult
    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        samples.append(clock.now - start)
        return result
    }

    /// Awaits `body` once and records how long it took.
    @discardableResult
    mutating func time<T>(_ body: () async throws -> T) async rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await body()
        samples.append(clock.now - start)
        return result
    }

    /// Records a duration timed elsewhere (across processes, say).
    mutating func record(_ duration: Duration) {
        samples.append(duration)
    }

    /// The value below which `fraction` of the samples fall (nearest rank).
    func percentile(_ fraction: Double) -> Duration {
        let sorted = samples.sorted()
        let rank = max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1)
        return sorted[min(rank, sorted.count - 1)]
    }

    /// `name  p50 … ms  p95 … ms  (n runs)`
    var report: String {
        let name = self.name.padding(toLength: 44, withPad: " ", startingAt: 0)
        return "\(name) p50 \(Self.milliseconds(percentile(0.5)))  p95 \(Self.milliseconds(percentile(0.95)))  (n=\(samples.count))"
    }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%8.3f ms", ms)
    }
}

/// Waits, looking every `interval` seconds (sleeping as a task: no thread is held), until
/// `condition` holds; throws naming `what` once `timeout` seconds pass first.
func waitUntil(_ what: String, timeout: TimeInterval = 60, every interval: TimeInterval = 0.005, _ condition: () throws -> Bool) async throws {
    let end = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < end else { throw ValidationError("timed out waiting until \(what)") }
        try await Task.sleep(for: .seconds(interval))
    }
}

