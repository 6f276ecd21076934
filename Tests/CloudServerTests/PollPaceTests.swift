@testable import CloudServer
import Testing

/// Issue 60: how often a token and an account may begin long polls. A poll before its turn
/// waits for it; one whose turn is more than `longestWait` off is refused and takes no turn.
struct PollPaceTests {
    private static let start = ContinuousClock.now

    @Test("A token's burst begins at once, the next polls wait their turns at its rate, and one whose turn is past the longest wait is refused without taking it")
    func aTokensBurstThenItsRate() {
        let pace = PollPace(limits: .init(perSecond: 2, burst: 4, accountPerSecond: 100, accountBurst: 100, longestWait: .seconds(2)))
        let turns = (0..<10).map { _ in pace.turn(account: "alice", token: "phone", now: Self.start) }
        #expect(turns == [
            .now, .now, .now, .now, .after(.milliseconds(500)), .after(.seconds(1)), .after(.milliseconds(1500)), .after(.seconds(2)),
            .refused(retryAfter: .milliseconds(2500), pause: .seconds(2)), .refused(retryAfter: .milliseconds(2500), pause: .seconds(2)),
        ])
        // A second on, the turns taken so far have moved on by two; the refused ones took none.
        #expect(pace.turn(account: "alice", token: "phone", now: Self.start + .seconds(1)) == .after(.milliseconds(1500)))
        // Another token of the account, and another account, have turns of their own.
        #expect(pace.turn(account: "alice", token: "laptop", now: Self.start + .seconds(1)) == .now)
        #expect(pace.turn(account: "bob", token: "phone", now: Self.start + .seconds(1)) == .now)
        // Once the token has been quiet long enough, its whole burst is there again.
        let later = Self.start + .seconds(10)
        #expect((0..<4).map { _ in pace.turn(account: "alice", token: "phone", now: later) } == [.now, .now, .now, .now])
    }

    @Test("An account's tokens share its pace: past the account's burst a new token's first poll waits too; a URL of no token is paced by its account alone")
    func anAccountsTokensShareItsPace() {
        let pace = PollPace(limits: .init(perSecond: 2, burst: 4, accountPerSecond: 4, accountBurst: 8, longestWait: .seconds(2)))
        for token in ["a", "b"] {
            #expect((0..<4).map { _ in pace.turn(account: "alice", token: token, now: Self.start) } == [.now, .now, .now, .now])
        }
        #expect(pace.turn(account: "alice", token: "c", now: Self.start) == .after(.milliseconds(250)))
        #expect(pace.turn(account: "alice", token: nil, now: Self.start) == .after(.milliseconds(500)))
        #expect(pace.turn(account: "bob", token: nil, now: Self.start) == .now)
    }

    @Test("A token's refusals that come faster than its pace are held longer, one interval of the pace each, up to the longest pause; once it is quiet, the pause is the longest wait again")
    func refusalsComingFastAreHeldLonger() {
        let pace = PollPace(limits: .init(perSecond: 2, burst: 4, accountPerSecond: 100, accountBurst: 100, longestWait: .seconds(2)))
        for _ in 0..<8 { _ = pace.turn(account: "alice", token: "phone", now: Self.start) }
        let pauses = (0..<70).map { _ -> Duration? in
            guard case let .refused(_, pause) = pace.turn(account: "alice", token: "phone", now: Self.start) else { return nil }
            return pause
        }
        #expect(pauses.prefix(4) == [.seconds(2), .seconds(2), .seconds(2), .seconds(2)])
        #expect(pauses[4] == .milliseconds(2500) && pauses[5] == .seconds(3))
        #expect(pauses.last == .seconds(30) && pauses.allSatisfy { $0 != nil && $0! <= .seconds(30) })
        // Another token of the account is not held for the first one's refusals.
        for _ in 0..<8 { _ = pace.turn(account: "alice", token: "laptop", now: Self.start) }
        #expect(pace.turn(account: "alice", token: "laptop", now: Self.start) == .refused(retryAfter: .milliseconds(2500), pause: .seconds(2)))
        // A minute on, the phone's refusals are long past: its next one is paused the longest wait again.
        let later = Self.start + .seconds(60)
        for _ in 0..<8 { _ = pace.turn(account: "alice", token: "phone", now: later) }
        #expect(pace.turn(account: "alice", token: "phone", now: later) == .refused(retryAfter: .milliseconds(2500), pause: .seconds(2)))
    }
}
