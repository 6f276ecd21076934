import CloudHTTPClient
import CloudKitModel
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A device of the push benchmark that is nothing but its wire: it sends what the app's
/// `ChangeListener` and `SyncSession` send for one zone (the same long poll after the same
/// sync token, asking for the records carried; on an answer, the carried page taken or
/// `changes/zone` fetched from its own token, page after page, then the next poll at once),
/// through the app's own client (`WebServicesDatabase`), but with no thread waiting: thousands
/// of them share the HTTP client's event loops. Its polls may go over a connection of its own
/// (`PollConnection`), asked and read as the app's client does. It keeps no database: of
/// each record it keeps the name and the change tag it last received, so a test can see what
/// it missed and what reached it twice.
///
/// What it is not: it applies nothing (no conflict rule, no search index, no outbox), never
/// writes, and has no engine (no safety timer, no push after a local change).
public final class WireDevice: Sendable {
    private struct State {
        var cursor: ChangeCursor?
        var token: ChangeToken?
        /// The records the zone holds as far as this device knows: name to change tag.
        var records: [String: String] = [:]
        /// Every version received, as name and change tag: one received again is a duplicate.
        var versions: Set<String> = []
        var duplicates = 0
        var notices: [ContinuousClock.Instant] = []
        var isFetching = false
        var fetchesAgain = false
        var hasFetched = false
        var earlyEmptyAnswers = 0
        var failures = 0
        var isStopped = false

        /// Takes a page of the zone's changes.
        mutating func apply(_ page: ZoneChanges) {
            for record in page.changed {
                let name = record.recordID.recordName
                let tag = record.changeTag ?? ""
                if !versions.insert(name + " " + tag).inserted { duplicates += 1 }
                records[name] = tag
            }
            for deleted in page.deleted {
                records[deleted.recordID.recordName] = nil
            }
            token = page.token
        }
    }

    private let client: WebServicesDatabase
    private let zone: RecordZoneID
    private let pollSeconds: Int
    private let resultsLimit: Int
    private let connection: PollConnection?
    private let state = Mutex(State())

    /// A device of `client`'s account that listens to `zone`, polls for `pollSeconds` at
    /// most (the app's `ChangeListener.pollSeconds`) and fetches `resultsLimit` changes a page
    /// (its `SyncSession`'s); with `ownConnection`, its polls go over a `PollConnection`, not
    /// through the client's pool.
    public init(client: WebServicesDatabase, zone: RecordZoneID, pollSeconds: Int, resultsLimit: Int, ownConnection: Bool = false) {
        self.client = client
        self.zone = zone
        self.pollSeconds = pollSeconds
        self.resultsLimit = resultsLimit
        self.connection = ownConnection ? PollConnection() : nil
    }

    /// Joins as the app's first sync and listener do: creates the zone, subscribes, takes the
    /// webcourier URL and the database's token, then holds its first poll and fetches
    /// everything so far.
    public func start() async throws {
        try await client.createZone(zone)
        try await connect()
    }

    /// Holds no poll after the one under way (which ends at once over a connection of its own).
    public func stop() {
        state.withLock { $0.isStopped = true }
        connection?.close()
    }

    /// Whether it holds a poll and has fetched everything it was told of.
    public var isLive: Bool { state.withLock { $0.cursor != nil && $0.hasFetched && !$0.isFetching } }

    /// When each answer that named a change arrived.
    public var notices: [ContinuousClock.Instant] { state.withLock { $0.notices } }

    /// The names of the records the zone holds as far as this device received them.
    public var recordNames: Set<String> { state.withLock { Set($0.records.keys) } }

    /// How many versions of records reached it more than once.
    public var duplicates: Int { state.withLock { $0.duplicates } }

    /// How many polls and fetches failed (each retried after the app's delays).
    public var failures: Int { state.withLock { $0.failures } }

    /// Subscribes (waiting for the answers), then polls and fetches from where it stands, as
    /// the app's listener tells its engine of every zone each time it starts watching.
    private func connect() async throws {
        let cursor = try await client.startWatching([zone])
        try await connection?.connect(for: WebServicesDatabase.pollURL(after: cursor, seconds: pollSeconds))
        state.withLock { $0.cursor = cursor }
        poll()
        fetch()
    }

    /// A poll failed: subscribe again after the app's retry delays, as its listener does.
    private func failed(on loop: any EventLoop) {
        let failures = state.withLock { state -> Int in
            state.failures += 1
            state.cursor = nil
            return state.isStopped ? 0 : state.failures
        }
        guard failures > 0 else { return }
        loop.scheduleTask(in: Self.retryDelay(afterFailure: failures)) {
            // Subscribing awaits its answers: in a task, off the event loop.
            Task { [self] in
                do {
                    try await connect()
                } catch {
                    failed(on: loop)
                }
            }
        }
    }

    private func poll() {
        guard let cursor = state.withLock({ $0.isStopped ? nil : $0.cursor }) else { return }
        let asked = ContinuousClock.now
        let answer: EventLoopFuture<ZoneChangeNotice?>
        if let connection {
            answer = Self.poll(after: cursor, seconds: pollSeconds, over: connection, readBy: client)
        } else {
            answer = client.waitForChangesFuture(after: cursor, seconds: pollSeconds)
        }
        answer.whenComplete { [self] result in
            switch result {
            case .success(let notice):
                let arrived = ContinuousClock.now
                let isNews = notice.map { !$0.zones.isEmpty } ?? false
                // As the app's listener: an empty answer well before its time waits out the retry delays.
                let early = notice == nil && arrived - asked < .seconds(pollSeconds) / 2
                let earlyInARow = state.withLock { state -> Int in
                    if let notice { state.cursor = notice.cursor }
                    if isNews { state.notices.append(arrived) }
                    state.earlyEmptyAnswers = early ? state.earlyEmptyAnswers + 1 : 0
                    return state.earlyEmptyAnswers
                }
                if earlyInARow == 0 {
                    poll()
                } else {
                    answer.eventLoop.scheduleTask(in: Self.retryDelay(afterFailure: earlyInARow)) { self.poll() }
                }
                if isNews { fetch() }
            case .failure:
                failed(on: answer.eventLoop)
            }
        }
    }

    /// The poll after `cursor` over `connection`, asked and read as `client` does.
    private static func poll(
        after cursor: ChangeCursor, seconds: Int, over connection: PollConnection, readBy client: WebServicesDatabase
    ) -> EventLoopFuture<ZoneChangeNotice?> {
        let url: URL
        do {
            url = try WebServicesDatabase.pollURL(after: cursor, seconds: seconds)
        } catch {
            return MultiThreadedEventLoopGroup.singleton.any().makeFailedFuture(error)
        }
        return connection.get(url).flatMapThrowing { answer in
            try client.notice(answering: cursor, status: answer.status, headers: answer.headers, body: answer.body)
        }
    }

    /// Fetches the zone's changes after this device's token, page after page: one fetch at a
    /// time, and a notice that comes meanwhile fetches again after it, as the app's engine
    /// runs one sync at a time.
    private func fetch() {
        let token = state.withLock { state -> ChangeToken?? in
            guard !state.isFetching else {
                state.fetchesAgain = true
                return nil
            }
            state.isFetching = true
            return .some(state.token)
        }
        guard let token else { return }
        fetchPage(after: token)
    }

    private func fetchPage(after token: ChangeToken?) {
        let page = client.fetchChangesFuture(in: zone, since: token, resultsLimit: resultsLimit)
        page.whenComplete { [self] result in
            switch result {
            case .success(let changes):
                let next = state.withLock { state -> ChangeToken?? in
                    state.apply(changes)
                    state.hasFetched = true
                    guard changes.moreComing || state.fetchesAgain else {
                        state.isFetching = false
                        return nil
                    }
                    state.fetchesAgain = false
                    return .some(state.token)
                }
                if let next { fetchPage(after: next) }
            case .failure:
                let failures = state.withLock { state -> Int in
                    state.failures += 1
                    return state.failures
                }
                page.eventLoop.scheduleTask(in: Self.retryDelay(afterFailure: failures)) { self.fetchPage(after: token) }
            }
        }
    }

    /// The app's retry delays (1 s, 2 s, 4 s, then 30 s at most).
    private static func retryDelay(afterFailure failures: Int) -> TimeAmount {
        .seconds(Int64(failures <= 3 ? 1 << (failures - 1) : 30))
    }
}
