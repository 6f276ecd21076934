import Foundation
import Testing

/// A suite whose tests run programs (`ideabox` commands, `ideabox serve`, apps in tmux) takes
/// turns with the other such suites: at most `TakesTurnsTrait.slots`' width of their tests run
/// at once. Swift Testing starts every test of a run together, and once awaiting a program
/// held no thread of the test pool, nothing else bounded them: a run of the command-line and
/// end-to-end suites kept 30 servers and 70 `ideabox` processes going at a load average of
/// 44, and an app in tmux then took over 10 s to draw a key. Two turns a core: a waiting test
/// holds no thread, and no test waits for another, so turns cannot deadlock.
///
/// A test that takes turns bounds its time with `.timeLimitFromTurn`, not Swift Testing's
/// `.timeLimit`, which counts from the start of the run: in a full run a test can wait minutes
/// for its turn behind the others, and four such tests ran out their limits before they began.
public struct TakesTurnsTrait: SuiteTrait, TestTrait, TestScoping {
    /// The turns every such suite of this test process shares.
    static let slots = RunSlots(width: 2 * max(2, ProcessInfo.processInfo.activeProcessorCount))

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite holds no turn itself, only each of its test cases: the suite waits for them.
        guard testCase != nil else { return try await function() }
        let limit = test.traits.lazy.compactMap { ($0 as? TimeLimitFromTurnTrait)?.limit }.first
        try await Self.slots.run {
            guard let limit else { return try await function() }
            try await Self.run(function, within: limit)
        }
    }

    /// Runs `function`; if it has not ended by `limit` on `clock`, records that as an issue and
    /// cancels it (as Swift Testing's time limit does), then awaits its end.
    public static func run(
        _ function: @Sendable () async throws -> Void, within limit: Duration, clock: any Clock<Duration> = ContinuousClock()
    ) async throws {
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await function()
                    return true
                }
                group.addTask {
                    try? await clock.sleep(for: limit)
                    return false
                }
                if try await group.next() == false {
                    Issue.record("Time limit was exceeded: \(limit) from the start of the test's turn")
                }
                group.cancelAll()
                try await group.waitForAll()
            }
        }
    }
}

/// How long a test that takes turns (`TakesTurnsTrait`) may run once its turn has come.
public struct TimeLimitFromTurnTrait: TestTrait {
    let limit: Duration

    /// Without turns there is nothing to count from: the test would run unbounded.
    public func prepare(for test: Test) async throws {
        guard test.traits.contains(where: { $0 is TakesTurnsTrait }) else {
            throw TurnError(description: "\(test.name) has a time limit from its turn but takes no turns (.takesTurns)")
        }
    }
}

private struct TurnError: Error, CustomStringConvertible {
    let description: String
}

extension Trait where Self == TakesTurnsTrait {
    /// Its tests take turns with the other tests that run programs (`TakesTurnsTrait`).
    public static var takesTurns: Self { Self() }
}

extension Trait where Self == TimeLimitFromTurnTrait {
    /// At most `limit` from the start of the test's turn (`TakesTurnsTrait`), however long it
    /// waited for it.
    public static func timeLimitFromTurn(_ limit: Duration) -> Self { Self(limit: limit) }
}
