@testable import CloudServer
import CloudWebServices
import Hummingbird
import Logging
import ServerStore
import Synchronization
import Testing

/// What `serve` says and counts when its store stops answering and when it is back: one
/// line each, and `/metrics`'s outages and store-up gauge; a request meanwhile is 503 with
/// `Retry-After`.
@Suite struct StoreOutageLogTests {
    /// A log handler that keeps each message, as `ServeLogHandler`'s text would write it.
    struct Kept: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            lines.kept.withLock { $0.append("\(event.level) \(event.message)\(fields)") }
        }
    }

    final class Lines: Sendable {
        let kept = Mutex<[String]>([])
    }

    @Test("One line when the store goes, naming the cause; one when it is back, with how long; both counted")
    func oneLineEachAndCounted() {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in Kept(lines: lines) }
        let metrics = ServerMetrics()
        let availability = StoreAvailability()
        StoreOutageLog.follow(availability, metrics: metrics, logger: logger)
        let text = { String(decoding: metrics.text(heldPolls: 0), as: UTF8.self) }
        #expect(text().contains("ideabox_store_up 1"))

        let start = ContinuousClock.now
        availability.wentDown(cause: "connection refused", at: start)
        availability.wentDown(cause: "connection refused", at: start + .seconds(1))
        #expect(text().contains("ideabox_store_up 0"))
        #expect(text().contains("ideabox_store_outages_total 1"))
        availability.answered(at: start + .milliseconds(85_240))
        #expect(text().contains("ideabox_store_up 1"))
        #expect(text().contains("ideabox_store_outages_total 1"))

        #expect(lines.kept.withLock { $0 } == [
            "error store not answering answer=503 TRY_AGAIN_LATER retryAfter=2 until it is back cause=connection refused",
            "notice store answering again down_seconds=85.2",
        ])
    }

    @Test("Seconds down, with one decimal")
    func seconds() {
        #expect(StoreOutageLog.seconds(.milliseconds(85_240)) == "85.2")
        #expect(StoreOutageLog.seconds(.milliseconds(960)) == "1.0")
        #expect(StoreOutageLog.seconds(.zero) == "0.0")
    }

    @Test("A request while the store is down is answered 503 TRY_AGAIN_LATER with Retry-After, not 500")
    func theAnswer() {
        let response = Response.error(WebServicesError(StoreAvailability().refusal))
        #expect(response.status.code == 503)
        #expect(response.headers[.retryAfter] == "2")
    }
}
