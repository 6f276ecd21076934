import Foundation
import Testing

/// A suite whose tests run programs (`ideabox` commands, `ideabox serve`, apps in tmux) takes
/// turns with the other such suites: at most `TakesTurnsTrait.slots`' width of their tests run
/// at once. Swift Testing starts every test of a run together, and once awaiting a program
/// held no thread of the test pool, nothing else bounded them: a run of the command-line and
/// end-to-end suites kept 30 servers and 70 `ideabox` processes going at a load average of
/// 44, and an app in tmux then took over 10 s to draw a key. Two turns a core: a waiting test
/// holds no thread, and no test waits for another, so turns cannot deadlock.
public struct TakesTurnsTrait: SuiteTrait, TestTrait, TestScoping {
    /// The turns every such suite of this test process shares.
    static let slots = RunSlots(width: 2 * max(2, ProcessInfo.processInfo.activeProcessorCount))

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite holds no turn itself, only each of its test cases: the suite waits for them.
        guard testCase != nil else { return try await function() }
        try await Self.slots.run { try await function() }
    }
}

extension Trait where Self == TakesTurnsTrait {
    /// Its tests take turns with the other tests that run programs (`TakesTurnsTrait`).
    public static var takesTurns: Self { Self() }
}
