@testable import CloudServer
import ProcessTestSupport
import Testing

/// An account's share of request bodies: past its limit, as many again wait in its line
/// and get the shares given back, first come first served; one past the line is refused at
/// once; a request in line too long is refused; another account never waits for it.
struct ShareCounterTests {
    /// A claim of `account` waiting in its line, there once this returns.
    private static func waitInLine(_ counter: ShareCounter, _ account: String) async throws -> Task<Bool, Never> {
        let before = counter.waiting(account)
        let claim = Task { await counter.claim(account, waitingAtMost: .seconds(60)) }
        try await Poll.until("the claim waits in line") { counter.waiting(account) > before }
        return claim
    }

    @Test("Past its share an account's requests wait in line and get the shares given back in turn; past the line they are refused at once")
    func aHostileAccountTakesNoMoreThanItsShare() async throws {
        let counter = ShareCounter(limit: 2, line: 2)
        #expect(await counter.claim("mallory", waitingAtMost: .seconds(60)))
        #expect(await counter.claim("mallory", waitingAtMost: .seconds(60)))
        let third = try await Self.waitInLine(counter, "mallory")
        let fourth = try await Self.waitInLine(counter, "mallory")
        // Past the line: refused at once, never held.
        #expect(await counter.claim("mallory", waitingAtMost: .seconds(60)) == false)
        #expect(counter.claim("mallory") == false)
        #expect(counter.count("mallory") == 2)
        // Another account is not in mallory's line.
        #expect(await counter.claim("alice", waitingAtMost: .seconds(60)))
        #expect(counter.count("alice") == 1)
        // A share given back goes to the first in line; the count stays at the limit.
        counter.release("mallory")
        #expect(await third.value)
        #expect(counter.count("mallory") == 2 && counter.waiting("mallory") == 1)
        counter.release("mallory")
        #expect(await fourth.value)
        counter.release("mallory")
        counter.release("mallory")
        #expect(counter.count("mallory") == 0 && counter.waiting("mallory") == 0)
    }

    @Test("A request that waits in line longer than its patience, or whose client leaves, is refused and leaves the line")
    func patienceEnds() async throws {
        let counter = ShareCounter(limit: 1, line: 2)
        #expect(counter.claim("mallory"))
        #expect(await counter.claim("mallory", waitingAtMost: .milliseconds(20)) == false)
        #expect(counter.waiting("mallory") == 0)
        let cancelled = try await Self.waitInLine(counter, "mallory")
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(counter.waiting("mallory") == 0)
        // The share still held is given back to nobody: the next claim takes it.
        counter.release("mallory")
        #expect(counter.count("mallory") == 0)
        #expect(counter.claim("mallory"))
    }

    @Test("Without a line (uploads), a claim past the share is refused at once")
    func noLine() async {
        let counter = ShareCounter(limit: 1)
        #expect(await counter.claim("mallory", waitingAtMost: .seconds(60)))
        #expect(await counter.claim("mallory", waitingAtMost: .seconds(60)) == false)
    }
}
