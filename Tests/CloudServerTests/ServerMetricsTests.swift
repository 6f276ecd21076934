@testable import CloudServer
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
}
