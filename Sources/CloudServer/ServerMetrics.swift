import CHeap
import Foundation
import HummingbirdCore
import Prometheus
import Synchronization

/// What `GET /metrics` tells an operator, in Prometheus's text format (ours): requests by
/// route and status, their latency by route, the connections open, the long polls held,
/// the store's errors, its outages and whether it answers now. Route labels are the operations and a few fixed names, never a path
/// a client chose, so the number of series stays bounded.
final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    // Descriptors are not Sendable: made where they are used.
    private static var requests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "ideabox", metricName: "requests", unitName: "total", helpText: "Requests answered, by route and status.")
    }
    private static var latency: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "ideabox", metricName: "request_duration", unitName: "seconds", helpText: "Time to answer a request, by route.")
    }
    private let connections: Gauge
    private let longPolls: Gauge
    private let storeErrors: Counter
    private let storeOutages: Counter
    private let storeUp: Gauge
    private let pollsHeldForTheirTurn: Counter
    private let pollsRefusedTheirTurn: Counter
    private let answersInFlight: Gauge
    private let answersRefused: Counter
    private let heapInUseGauge: Gauge
    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30), .seconds(65),
    ]

    /// Asks the heap how much it holds (`cheap_in_use`), at most once every `heapInterval`.
    private let heapInUseNow: @Sendable () -> Int
    private let heapInterval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let heapRead = Mutex<ContinuousClock.Instant?>(nil)

    /// `heapInUse` is asked at a scrape at most once every `heapInterval`: it walks the heap
    /// with its arenas locked, and `/metrics` needs no credentials, so a client scraping in a
    /// loop must not stall every allocation of the server.
    init(
        heapInUse: @escaping @Sendable () -> Int = { Int(cheap_in_use()) }, heapInterval: Duration = .seconds(1),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        (heapInUseNow, self.heapInterval, self.now) = (heapInUse, heapInterval, now)
        connections = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "open_connections", unitName: "", helpText: "Connections open now."))
        longPolls = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "long_polls_held", unitName: "", helpText: "Long polls waiting for a change now."))
        storeErrors = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "store_errors", unitName: "total", helpText: "Requests the store failed."))
        storeOutages = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "store_outages", unitName: "total", helpText: "Times the store stopped answering."))
        storeUp = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "store_up", unitName: "", helpText: "1 while the store answers, 0 while it does not."))
        storeUp.set(1.0)
        pollsHeldForTheirTurn = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "polls_paced", unitName: "total",
            helpText: "Long polls begun sooner than their token's or account's pace allows, held until their turn (PollPace)."))
        pollsRefusedTheirTurn = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "polls_refused", unitName: "total",
            helpText: "Long polls whose turn was too far off, answered THROTTLED (PollPace)."))
        answersInFlight = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "answers_in_flight", unitName: "",
            helpText: "Answers of records (query, lookup, changes) read or being written now, each holding its account's share."))
        answersRefused = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "answers_refused", unitName: "total",
            helpText: "Reads of records answered TRY_AGAIN_LATER: their account's answers share and its line were full."))
        heapInUseGauge = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ideabox", metricName: "heap_in_use", unitName: "bytes",
            helpText: "Bytes the heap has handed out and not had back, asked at a scrape at most once a second (glibc's mallinfo2; -1 elsewhere)."))
    }

    /// An answer of records began (+1) or was written (-1), holding its account's share.
    func answersInFlightChanged(by change: Double) {
        answersInFlight.increment(by: change)
    }

    /// Counts a read of records refused for its account's answers share.
    func answerRefused() {
        answersRefused.increment()
    }

    /// Counts a poll held for its turn, or refused.
    func pollPaced(refused: Bool) {
        (refused ? pollsRefusedTheirTurn : pollsHeldForTheirTurn).increment()
    }

    /// The store answers now (`up`) or not; `outageBegan` counts an outage.
    func storeChanged(up: Bool, outageBegan: Bool) {
        storeUp.set(up ? 1.0 : 0.0)
        if outageBegan { storeOutages.increment() }
    }

    /// The counter and latency histogram of each route and status answered, made once: the
    /// registry builds a metric's name and looks it up anew on every `make` call.
    private let instruments = Mutex<[RouteStatus: (requests: Counter, latency: DurationHistogram)]>([:])
    private struct RouteStatus: Hashable {
        var route: String
        var status: Int
    }

    /// Counts one answered request.
    func record(route: String, status: Int, elapsed: Duration) {
        let key = RouteStatus(route: route, status: status)
        let (requests, latency) = instruments.withLock { instruments in
            if let made = instruments[key] { return made }
            let made = (
                requests: registry.makeCounter(descriptor: Self.requests, labels: [("route", route), ("status", String(status))]),
                latency: registry.makeDurationHistogram(descriptor: Self.latency, labels: [("route", route)], buckets: Self.buckets))
            instruments[key] = made
            return made
        }
        requests.increment()
        latency.record(elapsed)
    }

    /// Counts a request the store failed.
    func storeFailed() {
        storeErrors.increment()
    }

    /// A connection opened (+1) or closed (-1).
    func connectionsChanged(by change: Double) {
        connections.increment(by: change)
        if change < 0 { closed.add(Int(-change), ordering: .relaxed) }
    }

    /// How many connections have closed since the server started (`HeapTrimmer` trims after
    /// many close: what they held is freed, and the process's memory does not show it).
    var connectionsClosed: Int { closed.load(ordering: .relaxed) }
    private let closed = Atomic<Int>(0)

    /// The text of every metric now, with `heldPolls` long polls waiting.
    func text(heldPolls: Int) -> [UInt8] {
        longPolls.set(Double(heldPolls))
        let time = now()
        let asks = heapRead.withLock { last in
            guard last.map({ time - $0 >= heapInterval }) ?? true else { return false }
            last = time
            return true
        }
        if asks { heapInUseGauge.set(Double(heapInUseNow())) }
        return registry.emitToBuffer()
    }
}

/// Counts the server's connections for `/metrics`, and stops taking new ones (they wait in
/// the listen backlog) while `limit` are open, so that accepting never runs the process out
/// of file descriptors and spins on the failure. (At the limit the connection idle longest
/// makes room: `ConnectionRegistry`.)
struct ConnectionLimit: AvailableConnectionsDelegate {
    let limit: Int
    let metrics: ServerMetrics
    var open = 0

    mutating func connectionOpened() {
        open += 1
        metrics.connectionsChanged(by: 1)
    }

    mutating func connectionClosed() {
        open -= 1
        metrics.connectionsChanged(by: -1)
    }

    func isAcceptingNewConnections() -> Bool {
        open < limit
    }
}
