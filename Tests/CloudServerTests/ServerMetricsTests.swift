@testable import CloudServer
import Synchronization
import Testing

/// What the server counts beside `/metrics`'s text.
@Suite struct ServerMetricsTests {
    @Test("Connections closed are counted from the start, and the gauge of open ones goes up and down with them")
    func connectionsClosedAreCounted() {
        let metrics = ServerMetrics()
        for _ in 0..<3 { metrics.connectionsChanged(by: 1) }
        metrics.connectionsChanged(by: -1)
        metrics.connectionsChanged(by: -1)
        metrics.connectionsChanged(by: 1)
        #expect(metrics.connectionsClosed == 2)
        #expect(String(decoding: metrics.text(heldPolls: 0), as: UTF8.self).contains("ideabox_open_connections 2"))
    }

    @Test("The heap is asked at a scrape at most once a second: a client scraping in a loop does not walk it each time")
    func theHeapIsAskedAtMostOnceASecond() {
        let asked = Mutex(0)
        let clock = Mutex(ContinuousClock.now)
        let metrics = ServerMetrics(
            heapInUse: { asked.withLock { $0 += 1; return $0 * 1_000 } }, heapInterval: .seconds(1), now: { clock.withLock { $0 } })
        func scrape() -> String { String(decoding: metrics.text(heldPolls: 0), as: UTF8.self) }
        #expect(scrape().contains("ideabox_heap_in_use_bytes 1000.0"))
        for _ in 0..<5 { #expect(scrape().contains("ideabox_heap_in_use_bytes 1000.0")) }
        clock.withLock { $0 += .milliseconds(999) }
        #expect(scrape().contains("ideabox_heap_in_use_bytes 1000.0"))
        clock.withLock { $0 += .milliseconds(1) }
        #expect(scrape().contains("ideabox_heap_in_use_bytes 2000.0"))
        #expect(asked.withLock { $0 } == 2)
    }
}
