import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import ProcessTestSupport
import Testing

/// How far this clock is from the remote's, and when that estimate stops holding.
@Suite struct RemoteClockEstimateTests {
    private static let start = TestTime.start
    private static let day: Int64 = 86_400_000

    @Test func aClockADayAheadStampsByTheRemotesTimeWhileItRunsOn() {
        let machine = ManualClock(start: Self.start)
        let fast = machine.wallClock.offset(by: Self.day)
        let estimate = RemoteClockEstimate(offset: -Self.day, measuredAt: fast.now(), measuredAtElapsed: fast.elapsed())
        machine.advance(by: 60_000)
        #expect(estimate.holds(on: fast))
        #expect(estimate.remoteTime(on: fast) == Self.start.adding(milliseconds: 60_000))
    }

    @Test func aClockSetRightDropsTheEstimateEitherWay() {
        let machine = ManualClock(start: Self.start)
        for offset in [Self.day, -Self.day] {
            let wrong = machine.wallClock.offset(by: offset)
            let estimate = RemoteClockEstimate(offset: -offset, measuredAt: wrong.now(), measuredAtElapsed: wrong.elapsed())
            #expect(!estimate.holds(on: machine.wallClock), "set right after \(offset) ms off")
            #expect(estimate.remoteTime(on: machine.wallClock) == machine.now)
        }
    }

    @Test func aSmallOffsetIsNoneAndAWeekOldEstimateIsDropped() {
        let machine = ManualClock(start: Self.start)
        let close = RemoteClockEstimate(offset: ArrivalRule.tolerance, measuredAt: machine.now, measuredAtElapsed: machine.now.milliseconds)
        #expect(close.remoteTime(on: machine.wallClock) == machine.now)
        let far = RemoteClockEstimate(offset: 5_000, measuredAt: machine.now, measuredAtElapsed: machine.now.milliseconds)
        machine.advance(by: 7 * Self.day + 1)
        #expect(!far.holds(on: machine.wallClock))
    }

    @Test func withoutABootClockItHoldsWhileTheClockDoesNotGoBack() {
        let machine = ManualClock(start: Self.start)
        let clock = WallClock { machine.now }
        let estimate = RemoteClockEstimate(offset: 5_000, measuredAt: machine.now)
        machine.advance(by: 1_000)
        #expect(estimate.remoteTime(on: clock) == machine.now.adding(milliseconds: 5_000))
        machine.set(Self.start.adding(milliseconds: -1))
        #expect(!estimate.holds(on: clock))
    }
}
