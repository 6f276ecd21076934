import CloudKitModel
import ServerStore
import Synchronization
import Testing

/// `StoreAvailability`: one outage from the first report that the store is down to the first
/// that it answers, each change told once, with how long it lasted; times are given, so no
/// test waits.
@Suite struct StoreAvailabilityTests {
    @Test("A store goes down once however often it is found down, and comes back once, saying how long it was gone")
    func oneOutageOneReturn() {
        let availability = StoreAvailability()
        let told = Mutex<[StoreAvailability.Change]>([])
        availability.observe { change in told.withLock { $0.append(change) } }
        let start = ContinuousClock.now
        #expect(!availability.isDown)
        #expect(availability.answered(at: start) == nil, "an answer while up changes nothing")

        #expect(availability.wentDown(cause: "connection refused", at: start + .seconds(1)) == .wentDown(cause: "connection refused"))
        #expect(availability.isDown)
        #expect(availability.wentDown(cause: "connection refused", at: start + .seconds(2)) == nil)
        #expect(availability.wentDown(cause: "the database system is starting up", at: start + .seconds(80)) == nil)
        #expect(availability.answered(at: start + .milliseconds(86_200)) == .cameBack(after: .milliseconds(85_200)))
        #expect(!availability.isDown)
        #expect(availability.answered(at: start + .seconds(90)) == nil)

        #expect(told.withLock { $0 } == [.wentDown(cause: "connection refused"), .cameBack(after: .milliseconds(85_200))])
        #expect(availability.outages == 1)
        availability.wentDown(cause: "server closed the connection", at: start + .seconds(100))
        #expect(availability.outages == 2)
    }

    @Test("While the store is down a call is refused as the server's database not answering, with a short retry-after")
    func theRefusal() {
        let availability = StoreAvailability()
        #expect(availability.refusal == .serverDatabaseUnavailable(retryAfter: 2))
        #expect(availability.refusal.isTransient)
        #expect(StoreAvailability.retryAfter <= 2, "a change waiting goes within a few seconds of the store's return")
    }
}
