import Foundation
import GRDB
import IdeaBoxFoundation
import ProcessTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 64: a write `serve` answered 200 for survives a power cut. The server runs with
/// `IDEABOX_SIMULATE_POWER_CUTS=1`, under which SQLite keeps every write not yet synced to
/// the disk in the process's memory (`csqlite_simulate_power_cuts`), so a `kill -9` takes
/// back what a lost machine would. Two devices upload at once; at a seeded random moment the
/// power goes; the ideas each device had an answer for (its `lastSyncedAt` set, gone from its
/// outbox) must all be on the server when it comes back, read by a third device.
@Suite("A power cut of ideabox serve", .takesTurns)
struct PowerCutTests {
    @Test func everyAcknowledgedWriteSurvivesAPowerCut() async throws {
        let server = try ServeProcess(environment: ["IDEABOX_SIMULATE_POWER_CUTS": "1"])
        defer { server.close() }
        let token = try await server.addAccount("alice")
        try await server.start()
        let url = try server.url
        let (a, b, reader) = (try DeviceProcess(), try DeviceProcess(), try DeviceProcess())
        for device in [a, b, reader] {
            try await device.run(["account", "sign-in", "alice", "--server", url, "--token", token])
        }
        var random = SeededRandomNumberGenerator(seed: 64)
        var (next, acknowledged) = (1, Set<String>())
        for round in 1...3 {
            // Each device: 300 ideas, three requests of 100, each held back 100 ms.
            for device in [a, b] {
                try ServedSyncTests.ideas(300, from: next).write(to: device.file("ideas-\(round).json"))
                try await device.run(["import", device.file("ideas-\(round).json").path])
                try await device.run(["remote", "latency", "100"])
                next += 300
            }
            let uploads = try [a, b].map { try $0.start(["sync"]) }
            let answered = try await server.kill(afterModifies: Int.random(in: 1...5, using: &random))
            try await server.stop(SIGKILL)
            for upload in uploads { _ = try await upload.exitStatus() }
            // Read while the server is down: what each device was told is saved.
            for device in [a, b] { acknowledged.formUnion(try await Self.acknowledged(device)) }
            #expect(try Self.check(server.directory.appendingPathComponent("remote.sqlite")) == ["ok"], "round \(round)")
            try await server.start()
            try await reader.run(["sync"])
            let onServer = Set(try await Self.ideaIDs(reader))
            let lost = acknowledged.subtracting(onServer).count
            #expect(lost == 0, "round \(round), cut after \(answered) answers: \(lost) of \(acknowledged.count) acknowledged ideas lost")
            print("PowerCutTests: round \(round), cut after \(answered) answers; \(acknowledged.count) ideas acknowledged so far, \(lost) lost")
            for device in [a, b] {
                try await device.run(["remote", "latency", "0"])
                try await device.run(["sync"])
            }
        }
        try await reader.run(["sync"])
        #expect(try await Self.ideaIDs(reader).count == next - 1, "every idea arrives in the end")
    }

    /// SQLite's `integrity_check` of the file at `url` as the power cut left it (its WAL
    /// recovered as the next server's open would), and every foreign key that points nowhere.
    private static func check(_ url: URL) throws -> [String] {
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        return try database.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check")
                + Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { "foreign key: \($0)" }
        }
    }

    /// The ideas of `device` its server has answered for (`lastSyncedAt` set).
    private static func acknowledged(_ device: DeviceProcess) async throws -> Set<String> {
        Set(try await exported(device).filter { !($0["lastSyncedAt"] is NSNull) && $0["lastSyncedAt"] != nil }.compactMap { $0["id"] as? String })
    }

    private static func ideaIDs(_ device: DeviceProcess) async throws -> [String] {
        try await exported(device).compactMap { $0["id"] as? String }
    }

    private static func exported(_ device: DeviceProcess) async throws -> [[String: Any]] {
        let export = try JSONSerialization.jsonObject(with: Data(await device.run(["export"]).utf8)) as? [String: Any]
        return export?["ideas"] as? [[String: Any]] ?? []
    }
}
