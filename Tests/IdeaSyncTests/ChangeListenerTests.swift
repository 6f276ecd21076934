import CloudKitModel
import IdeaBoxFoundation
import IdeaSync
import ProcessTestSupport
import Synchronization
import Testing

/// The listener that holds a device's long poll, on a stepped scheduler with a feed that
/// answers from a script.
@Suite struct ChangeListenerTests {
    static let ideas = RecordZoneID(zoneName: "Ideas")
    static let library = RecordZoneID(zoneName: "RawLibraryZone")

    /// What a listener told.
    final class Told: Sendable {
        let changes = Mutex<[[RecordZoneID]]>([])
        let deliveries = Mutex<[ChangeDelivery]>([])
    }

    /// A listener over `feed`, what it told, and the scheduler it runs on.
    struct Harness {
        let scheduler = ManualSyncScheduler(start: TestTime.start)
        let feed: ScriptedChangeFeed
        let record = Told()
        let listener: ChangeListener

        init(_ feed: ScriptedChangeFeed) {
            self.feed = feed
            let record = record
            listener = ChangeListener(
                feed: feed, zones: [ChangeListenerTests.ideas, ChangeListenerTests.library], scheduler: scheduler,
                onChange: { zones in record.changes.withLock { $0.append(zones) } },
                onDelivery: { delivery in record.deliveries.withLock { $0.append(delivery) } })
            // The script's end stops the listener, so that stepping the scheduler ends.
            let listener = listener
            feed.whenExhausted { listener.stop() }
        }

        var told: [[RecordZoneID]] { record.changes.withLock { $0 } }
        var delivered: [ChangeDelivery] { record.deliveries.withLock { $0 } }
    }

    @Test func itSubscribesCatchesUpThenPassesOnEachNoticeAndPollsAgainAfterATimeout() async {
        let harness = Harness(ScriptedChangeFeed([
            .timeout, .notice([Self.ideas]), .timeout, .notice([Self.library]),
        ]))
        harness.listener.start()
        // A stepped clock stands still while the feed answers, so each timeout here looks
        // early and the next poll waits a second (see the next test).
        await harness.scheduler.advance(by: 2000)

        #expect(harness.delivered == [.live])
        #expect(harness.told == [[Self.ideas, Self.library], [Self.ideas], [Self.library]])
        #expect(harness.feed.starts == 1)
        // Each wait starts from where the last notice left it; a timeout keeps the cursor.
        #expect(harness.feed.waitedAfter == ["start-1", "start-1", "notice-2", "notice-2", "notice-4"])
    }

    @Test func emptyAnswersThatComeBackAtOnceAreSpacedOutNotRepeatedInATightLoop() async {
        let harness = Harness(ScriptedChangeFeed([.timeout, .timeout, .timeout, .notice([Self.ideas]), .timeout]))
        harness.listener.start()
        await harness.scheduler.runDue()
        #expect(harness.feed.waitedAfter.count == 1)
        await harness.scheduler.advance(by: 1000)
        #expect(harness.feed.waitedAfter.count == 2)
        await harness.scheduler.advance(by: 1999)
        #expect(harness.feed.waitedAfter.count == 2)
        await harness.scheduler.advance(by: 1)
        #expect(harness.feed.waitedAfter.count == 3)
        // The fourth comes 4 s later and brings a notice: the next poll goes out at once.
        await harness.scheduler.advance(by: 4000)
        #expect(harness.feed.waitedAfter.count == 5)
        #expect(harness.told == [[Self.ideas, Self.library], [Self.ideas]])
        #expect(harness.delivered == [.live])
    }

    @Test func aLostPollReportsPollingAndStartsOverAfterOneTwoThenFourSecondsThenGoesLiveAgain() async {
        let harness = Harness(ScriptedChangeFeed(
            [.notice([Self.ideas]), .failure(.networkFailure), .notice([Self.library])],
            startFailures: [nil, .networkFailure, .serviceUnavailable(retryAfter: nil), nil]))
        harness.listener.start()
        await harness.scheduler.runDue()
        #expect(harness.delivered == [.live, .polling])
        #expect(harness.feed.starts == 1)

        await harness.scheduler.advance(by: 999)
        #expect(harness.feed.starts == 1)
        await harness.scheduler.advance(by: 1)
        #expect(harness.feed.starts == 2)
        await harness.scheduler.advance(by: 2000)
        #expect(harness.feed.starts == 3)
        #expect(harness.delivered == [.live, .polling])
        await harness.scheduler.advance(by: 4000)
        #expect(harness.feed.starts == 4)
        #expect(harness.delivered == [.live, .polling, .live])
        // Back live, it catches up on everything it may have missed, then goes on waiting.
        #expect(harness.told == [[Self.ideas, Self.library], [Self.ideas], [Self.ideas, Self.library], [Self.library]])
    }

    /// Issue 58: a server whose database is down asks for a short wait; the listener takes
    /// it, however many tries failed, instead of backing off to 30 s, so that it is live
    /// again within that wait of the database's return.
    @Test func aServersRetryAfterReplacesTheBackoffSoThePollComesBackWithinIt() async {
        let down = CloudError.serverDatabaseUnavailable(retryAfter: 2)
        let harness = Harness(ScriptedChangeFeed(
            [.failure(down), .notice([Self.ideas])],
            startFailures: [nil, down, down, down, down, down, nil]))
        harness.listener.start()
        await harness.scheduler.runDue()
        #expect(harness.delivered == [.live, .polling])
        // Five failed starts, each 2 s after the last: no 4, 8, 16 s.
        for starts in 2...6 {
            await harness.scheduler.advance(by: 1999)
            #expect(harness.feed.starts == starts - 1)
            await harness.scheduler.advance(by: 1)
            #expect(harness.feed.starts == starts)
        }
        await harness.scheduler.advance(by: 2000)
        #expect(harness.feed.starts == 7)
        #expect(harness.delivered == [.live, .polling, .live])
        #expect(ChangeListener.retryDelay(afterFailure: 9, error: down) == 2000)
        #expect(ChangeListener.retryDelay(afterFailure: 9, error: CloudError.internalError) == 30_000)
    }

    @Test func retryNowCutsTheBackoffShortOnceAndOnlyWhilePolling() async {
        let harness = Harness(ScriptedChangeFeed(
            [.failure(.networkUnavailable)], startFailures: [nil, nil]))
        harness.listener.retryNow()
        await harness.scheduler.runDue()
        #expect(harness.feed.starts == 0, "retryNow started a listener that was never started")
        harness.listener.start()
        await harness.scheduler.runDue()
        #expect(harness.delivered == [.live, .polling] && harness.feed.starts == 1)
        harness.listener.retryNow()
        await harness.scheduler.runDue()
        #expect(harness.feed.starts == 2 && harness.delivered == [.live, .polling, .live])
        // The backoff's own try, due at 1 s, was replaced: no third start.
        await harness.scheduler.advance(by: 1000)
        #expect(harness.feed.starts == 2)
    }

    @Test func aRetryMadeWhileAConnectWaitsTakesOverSoOnlyOnePollRuns() async {
        let feed = ScriptedChangeFeed([.notice([Self.ideas])], startFailures: [.networkFailure, nil, nil])
        let harness = Harness(feed)
        harness.listener.start()
        await harness.scheduler.runDue()
        #expect(harness.delivered == [.polling])
        // The backoff's try (at 1 s) is under way when the network comes back.
        feed.whileStarting { harness.listener.retryNow() }
        await harness.scheduler.advance(by: 1000)
        // The retry's connect ran after it; only its poll chain waits.
        #expect(harness.feed.starts == 3)
        #expect(harness.feed.waitedAfter.allSatisfy { $0 != "start-2" }, "\(harness.feed.waitedAfter)")
        #expect(harness.feed.waitedAfter.first == "start-3")
    }

    @Test func stopEndsTheLoopAfterTheWaitUnderWay() async {
        let harness = Harness(ScriptedChangeFeed([.timeout, .timeout, .timeout]))
        harness.listener.start()
        harness.listener.stop()
        await harness.scheduler.runDue()
        #expect(harness.feed.starts == 0 && harness.delivered.isEmpty)
    }
}

/// A feed that answers each wait with the next of its script (a notice, a timeout or a
/// failure), and each start with the next of its start failures (nil: it works).
final class ScriptedChangeFeed: ZoneChangeFeed {
    enum Answer: Sendable {
        case notice([RecordZoneID])
        case timeout
        case failure(CloudError)
    }

    private struct State {
        var answers: [Answer]
        var startFailures: [CloudError?]
        var starts = 0
        var waits = 0
        var waitedAfter: [String] = []
        var whenExhausted: (@Sendable () -> Void)?
        var whileStarting: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>

    init(_ answers: [Answer], startFailures: [CloudError?] = []) {
        state = Mutex(State(answers: answers, startFailures: startFailures))
    }

    /// How many times watching was started, failures included.
    var starts: Int { state.withLock { $0.starts } }
    /// The cursor each wait was given, in order.
    var waitedAfter: [String] { state.withLock { $0.waitedAfter } }

    /// Calls `action` on the first wait after the script ran out.
    func whenExhausted(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.whenExhausted = action }
    }

    /// Calls `action` (once) in the middle of the next start, as a key pressed meanwhile would.
    func whileStarting(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.whileStarting = action }
    }

    func startWatching(_ zones: [RecordZoneID]) throws -> ChangeCursor {
        let during = state.withLock { state in
            defer { state.whileStarting = nil }
            return state.whileStarting
        }
        during?()
        return try state.withLock { state in
            state.starts += 1
            if !state.startFailures.isEmpty, let failure = state.startFailures.removeFirst() { throw failure }
            return ChangeCursor("start-\(state.starts)")
        }
    }

    func waitForChanges(after cursor: ChangeCursor, seconds: Int) throws -> ZoneChangeNotice? {
        let (answer, exhausted) = state.withLock { state -> (Answer?, (@Sendable () -> Void)?) in
            state.waitedAfter.append(cursor.value)
            guard !state.answers.isEmpty else { return (nil, state.whenExhausted) }
            state.waits += 1
            return (state.answers.removeFirst(), nil)
        }
        exhausted?()
        switch answer {
        case nil, .timeout?: return nil
        case .notice(let zones)?: return ZoneChangeNotice(zones: zones, cursor: ChangeCursor("notice-\(state.withLock { $0.waits })"))
        case .failure(let error)?: throw error
        }
    }
}

/// Issue 59: a server nothing listens for is looked for every second, not on the backoff,
/// and each answer is told, so the engine heals at the first.
extension ChangeListenerTests {
    @Test func aServerNothingListensForIsLookedForEverySecondAndItsFirstAnswerIsTold() async {
        let refused = CloudError.serverUnreachable(host: "127.0.0.1:8420", cause: .refused)
        let scheduler = ManualSyncScheduler(start: TestTime.start)
        let feed = ScriptedChangeFeed([.failure(refused), .timeout], startFailures: [nil] + Array(repeating: refused, count: 6) + [nil])
        let answers = Mutex(0)
        let listener = ChangeListener(
            feed: feed, zones: [Self.ideas], scheduler: scheduler, onChange: { _ in }, onDelivery: { _ in },
            onAnswer: { answers.withLock { $0 += 1 } })
        feed.whenExhausted { listener.stop() }
        listener.start()
        await scheduler.runDue()
        #expect(answers.withLock { $0 } == 1, "the start was an answer")
        for starts in 2...7 {
            await scheduler.advance(by: 999)
            #expect(feed.starts == starts - 1)
            await scheduler.advance(by: 1)
            #expect(feed.starts == starts, "no 2, 4, 8, 16 s while nothing listens")
        }
        #expect(answers.withLock { $0 } == 1)
        await scheduler.advance(by: 1000)
        #expect(feed.starts == 8)
        #expect(answers.withLock { $0 } >= 2, "the server's first answer was not told")
        #expect(ChangeListener.retryDelay(afterFailure: 9, error: refused) == 1000)
        #expect(ChangeListener.retryDelay(afterFailure: 9, error: CloudError.serverUnreachable(host: "h", cause: .timedOut)) == 30_000)
    }
}
