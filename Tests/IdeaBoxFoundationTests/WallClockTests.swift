import Foundation
import IdeaBoxFoundation
import Testing

/// The clock's time zone: the machine's for the system clock (looked up only when asked
/// for), UTC or the one given otherwise.
@Suite struct WallClockTests {
    @Test func theSystemClockReadsInTheMachinesZone() {
        #expect(WallClock.system.timeZone == TimeZone.autoupdatingCurrent)
        #expect(WallClock.system.offset(by: 5_000).timeZone == TimeZone.autoupdatingCurrent)
    }

    @Test func otherClocksReadInTheZoneGiven() throws {
        let start = Timestamp(milliseconds: 1_700_000_000_000)
        #expect(WallClock.fixed(start).timeZone == .utc)
        let taipei = try #require(TimeZone(identifier: "Asia/Taipei"))
        let clock = WallClock.fixed(start).reading(in: taipei)
        #expect(clock.timeZone == taipei)
        #expect(clock.offset(by: 1_000).timeZone == taipei)
        #expect(clock.offset(by: 1_000).now() == start.adding(milliseconds: 1_000))
    }
}
