import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Synchronization

/// `ideabox-bench load`: many device clients at once against one `ideabox serve` process,
/// each on a thread and a connection of its own: the requests per second the server holds,
/// their p95, and afterwards every account checked for lost or duplicated records.
struct LoadBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "Benchmark the server: concurrent device clients, requests/s, p95, lost or duplicated records.")

    @Option(help: "How many device clients run at once.") var clients = 50
    @Option(help: "How many accounts the clients are spread over.") var accounts = 5
    @Option(help: "How long the clients run, in seconds.") var seconds = 20.0
    @Option(
        name: .customLong("server"),
        help: ArgumentHelp("The store behind `ideabox serve`: `sqlite` (a new file) or `postgres://…`.", valueName: "store"))
    var store = "sqlite"
    @Flag(help: "Serve HTTPS (a certificate made with openssl for the run) instead of plain HTTP.") var tls = false

    static let zone = RecordZoneID(zoneName: "Load")

    func run() async throws {
        let server = try BenchServer(store: store, tls: tls)
        defer { server.stop() }
        let process = ProcessInfo.processInfo.processIdentifier
        let owners = try (0..<accounts).map { try server.newAccount("load-\(process)-\($0)") }
        for owner in owners {
            let client = try server.client(owner)
            try await client.createZone(Self.zone)
        }

        let latencies = Locked<[Duration]>([])
        let saved = Locked<[Int: Set<String>]>([:])
        let errors = Locked<[String: Int]>([:])
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let start = ContinuousClock.now
        // Each client a task: its requests are awaited, so the two cores' threads serve all 50.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                let account = client % accounts
                let database = try server.client(owners[account])
                group.addTask {
                    var device = LoadDevice(name: "c\(client)", database: database)
                    while ContinuousClock.now < deadline {
                        do {
                            let timings = try await device.step()
                            latencies.withLock { $0.append(contentsOf: timings) }
                        } catch {
                            errors.withLock { $0[String(describing: error), default: 0] += 1 }
                        }
                    }
                    let names = device.saved
                    saved.withLock { $0[account, default: []].formUnion(names) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start

        var lost = 0
        var duplicated = 0
        var records = 0
        for (index, owner) in owners.enumerated() {
            let names = try await Self.allRecordNames(try server.client(owner))
            records += names.count
            duplicated += names.count - Set(names).count
            lost += saved.withLock { $0[index, default: []] }.subtracting(names).count
        }

        var measurement = Measurement(name: "request (modify or changes/zone)")
        latencies.withLock { $0 }.forEach { measurement.record($0) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("ideabox serve\(tls ? " over HTTPS" : ""), store \(store): \(clients) clients over \(accounts) accounts for \(String(format: "%.1f", seconds)) s")
        print("  requests/s held: \(Int(Double(measurement.samples.count) / seconds)) (\(measurement.samples.count) requests)")
        print("  \(measurement.report)")
        print("  records on the server: \(records); lost: \(lost); duplicated: \(duplicated)")
        let failures = errors.withLock { $0 }
        print("  failed requests: \(failures.values.reduce(0, +))" + failures.map { "\n    \($1) × \($0)" }.joined())
        guard lost == 0, duplicated == 0, failures.isEmpty else { throw ExitCode(1) }
    }

    /// Every record name in the zone, as a new device's change fetch from the start lists them.
    private static func allRecordNames(_ database: WebServicesDatabase) async throws -> [String] {
        var names: [String] = []
        var token: ChangeToken?
        var page: ZoneChanges
        repeat {
            page = try await database.fetchChanges(in: zone, since: token, resultsLimit: 400)
            names += page.changed.map(\.recordID.recordName)
            token = page.token
        } while page.moreComing
        return names
    }
}

/// One device of the load run: each step saves a few new records and changes one of its
/// earlier ones (with its change tag), then fetches the account's changes since its token.
private struct LoadDevice {
    let name: String
    let database: WebServicesDatabase
    /// Names of the records the server said it saved.
    private(set) var saved: Set<String> = []
    private var mine: [RemoteRecord] = []
    private var token: ChangeToken?
    private var counter = 0

    init(name: String, database: WebServicesDatabase) {
        self.name = name
        self.database = database
    }

    /// One step; returns how long each request took.
    mutating func step() async throws -> [Duration] {
        var records = (0..<4).map { _ in
            counter += 1
            return RemoteRecord(
                recordType: "Note", recordID: RecordID(recordName: "\(name)-\(counter)", zoneID: LoadBenchmark.zone),
                fields: ["text": .string("想法 \(counter) from \(name)"), "n": .int64(Int64(counter))])
        }
        if var earlier = mine.randomElement() {
            earlier.fields["text"] = .string("changed \(counter)")
            records.append(earlier)
        }
        let clock = ContinuousClock()
        var start = clock.now
        let (database, sent) = (database, records)
        let result = try await database.modify(saving: sent, deleting: [], savePolicy: .ifServerRecordUnchanged)
        let modify = clock.now - start
        for record in result.saved {
            saved.insert(record.recordID.recordName)
            if let index = mine.firstIndex(where: { $0.recordID == record.recordID }) {
                mine[index] = record
            } else {
                mine.append(record)
            }
        }
        if let failure = result.failures.first { throw failure.value }
        var timings = [modify]
        var page: ZoneChanges
        repeat {
            start = clock.now
            page = try await database.fetchChanges(in: LoadBenchmark.zone, since: token, resultsLimit: 400)
            timings.append(clock.now - start)
            token = page.token
        } while page.moreComing
        return timings
    }
}
