import BenchDevices
import CloudHTTPClient
import CloudKitModel
import CloudServer
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import ProcessTestSupport
import SQLiteRecordStore
import Testing

/// The push benchmark's wire device against `ideabox serve` (in this process, on
/// 127.0.0.1): it must end with exactly the writer's records, none twice, and send for each
/// change what the app's listener and engine send, its polls through the app's client or
/// over a connection of its own.
@Suite(.serialized) struct WireDeviceTests {
    typealias Served = ChangeListenerServedTests

    @Test(
        "A wire device receives every change once: small writes carried by its poll, large ones fetched page by page",
        arguments: [false, true])
    func receivesEveryChangeOnce(pollingOverOwnConnection ownConnection: Bool) async throws {
        let lines = Lines()
        let server = try await Served.Server(store: try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200),
                                       log: RequestLog(clock: .system) { lines.append($0) })
        let writer = server.device("writer")
        _ = try await writer.session.run()
        // Pages of 10, so that a write of more than a poll carries (20 records) takes three.
        let device = WireDevice(client: server.client(), zone: SyncSession.zone, pollSeconds: 60, resultsLimit: 10, ownConnection: ownConnection)
        try await device.start()
        defer { device.stop() }
        try await Self.waitUntil("the device is live") { device.isLive }
        try await Self.waitUntilQuiet(lines)

        var ideas: [UUID] = []
        for (count, carried) in [(1, true), (3, true), (25, false)] {
            let before = lines.all.count
            for index in 0..<count { ideas.append(try writer.repository.addIdea(title: "\(count) at once, \(index)").id) }
            _ = try writer.repository.setCompleted(true, id: ideas[0])
            _ = try await writer.session.send()
            try await Self.waitUntil("the device has \(ideas.count) records") { device.recordNames.count == ideas.count && device.isLive }
            try await Self.waitUntilQuiet(lines)
            let fetches = lines.all.dropFirst(before).filter { $0.contains("/changes/zone ") }.count
            #expect(fetches == (carried ? 0 : 3), "a write of \(count): \(fetches) fetches")
        }
        #expect(device.recordNames == Set(ideas.map(\.lowercasedString)))
        #expect(device.duplicates == 0)
        #expect(device.failures == 0)
        #expect(device.notices.count >= 3)
    }

    @Test("For the same writes, a wire device sends what the app's listener and engine send", arguments: [false, true])
    func sendsWhatTheAppSends(pollingOverOwnConnection ownConnection: Bool) async throws {
        // Two servers, one for each kind of device, each with a writer that writes the same.
        let appLines = Lines()
        let wireLines = Lines()
        let appServer = try await Served.Server(store: try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200),
                                          log: RequestLog(clock: .system) { appLines.append($0) })
        let wireServer = try await Served.Server(store: try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200),
                                           log: RequestLog(clock: .system) { wireLines.append($0) })
        let appWriter = appServer.device("app writer")
        let wireWriter = wireServer.device("wire writer")
        _ = try await appWriter.session.run()
        _ = try await wireWriter.session.run()

        let app = AppDevice(client: appServer.client())
        app.start()
        defer { app.stop() }
        let wire = WireDevice(
            client: wireServer.client(), zone: SyncSession.zone, pollSeconds: ChangeListener.pollSeconds, resultsLimit: SyncSession.fetchLimit,
            ownConnection: ownConnection)
        try await wire.start()
        defer { wire.stop() }
        try await Self.waitUntil("both devices are live") {
            app.engine.delivery == .live && app.engine.status.isSynced && wire.isLive
        }
        try await Self.waitUntilQuiet(appLines)
        try await Self.waitUntilQuiet(wireLines)

        for count in [1, 3, 25, 2] {
            let (appBefore, wireBefore) = (appLines.all.count, wireLines.all.count)
            for writer in [appWriter, wireWriter] {
                for index in 0..<count { _ = try writer.repository.addIdea(title: "\(count) at once, \(index)") }
                _ = try await writer.session.send()
            }
            let written = try appWriter.repository.counts().all
            try await Self.waitUntil("both devices have \(written) ideas") {
                try app.repository.counts().all == written && wire.recordNames.count == written && wire.isLive
            }
            try await Self.waitUntilQuiet(appLines)
            try await Self.waitUntilQuiet(wireLines)
            let appSent = Self.requests(appLines.all.dropFirst(appBefore))
            let wireSent = Self.requests(wireLines.all.dropFirst(wireBefore))
            #expect(wireSent == appSent, "a write of \(count)")
            #expect(wireSent.contains("GET /webcourier/… 200"), "a write of \(count): no poll answered")
        }
        #expect(wire.duplicates == 0)
    }

    /// How long a wait may take before the test fails: long, as a whole suite on two cores
    /// can leave a test's task unscheduled for seconds.
    static let deadline: Duration = .seconds(120)

    /// Waits until `condition` holds; fails after `deadline`.
    static func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        try await Served.waitUntil(what, deadline: deadline, condition)
    }

    /// Waits until `lines` has not grown for 200 ms of the clock: the requests have settled.
    static func waitUntilQuiet(_ lines: Lines) async throws {
        try await Poll.untilQuiet("the requests settle", timeout: deadline, every: .milliseconds(20)) { lines.all.count }
    }

    /// The requests in `lines` as method, path and status, sorted (the writer's and the
    /// device's interleave as they happen to).
    static func requests(_ lines: ArraySlice<String>) -> [String] {
        lines.map { $0.split(separator: " ").dropFirst().prefix(3).joined(separator: " ") }.sorted()
    }

    /// A device whose engine and listener run as the app's do, polling as long as the app's.
    struct AppDevice {
        let repository: IdeaRepository
        let engine: SyncEngine
        let listener: ChangeListener

        init(client: WebServicesDatabase) {
            let database = try! IdeaDatabase.inMemory(
                firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), ids: .random)
            repository = database.repository(clock: .system, ids: .random)
            let engine = SyncEngine(
                session: SyncSession(repository: repository, database: client, clock: .system),
                scheduler: DispatchSyncScheduler(clock: .system, label: "test.wire.sync"))
            self.engine = engine
            listener = ChangeListener(
                feed: client, zones: [SyncSession.zone], scheduler: DispatchSyncScheduler(clock: .system, label: "test.wire.notifications"),
                onChange: { engine.changesArrived(in: $0) }, onDelivery: { engine.deliveryChanged($0) })
        }

        func start() {
            engine.start()
            listener.start()
        }

        func stop() {
            listener.stop()
            engine.stop()
        }
    }
}
