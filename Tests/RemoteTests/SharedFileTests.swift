import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import Testing

/// Two `SimulatedCloud`s on one file behave as two processes sharing one server.
@Suite struct SharedFileTests {
    static func open(_ directory: TemporaryDirectory, clock: ManualClock) throws -> SimulatedCloud {
        try SimulatedCloud.open(
            directory: directory.url, clock: clock.wallClock, random: SeededRandomNumberGenerator(seed: 1),
            sleeper: Sleeper { _ in })
    }

    @Test("Writes and fault settings made through one instance are seen by the other")
    func sharing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = ManualClock(start: CloudFixture.start)
        let app = try Self.open(directory, clock: clock)
        let command = try Self.open(directory, clock: clock)
        #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(SimulatedCloud.fileName).path))

        let laptop = app.database(forDevice: "laptop")
        try await laptop.createZone(CloudFixture.zone)
        _ = try await laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        let phone = command.database(forDevice: "phone")
        #expect(try await phone.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("a")])

        try command.network.setOffline(true, device: "laptop")
        #expect(await cloudError { try await laptop.records(in: CloudFixture.zone, ofType: "Note") } == .networkUnavailable)
        try command.network.setOffline(false, device: "laptop")
        try command.network.scriptErrors([ScriptedError(.zoneBusy(retryAfter: 1))], device: "laptop")
        #expect(await cloudError { try await laptop.records(in: CloudFixture.zone, ofType: "Note") } == .zoneBusy(retryAfter: 1))
        try command.network.signIn(device: "laptop", account: "other")
        #expect(try await laptop.accountStatus() == .available(accountName: "other"))
        #expect(try app.status(device: "laptop").account == "other")
    }

    @Test("Reopening the file keeps zones, records and change tokens")
    func reopen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = ManualClock(start: CloudFixture.start)
        let token = try await {
            let database = try Self.open(directory, clock: clock).database(forDevice: "laptop")
            try await database.createZone(CloudFixture.zone)
            _ = try await database.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
            return try await database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        }()
        let database = try Self.open(directory, clock: clock).database(forDevice: "laptop")
        _ = try await database.modify(saving: [note("b")], deleting: [], savePolicy: .allKeys)
        #expect(try await database.fetchChanges(in: CloudFixture.zone, since: token, resultsLimit: 10).changed.map(\.recordID) == [id("b")])
    }

    @Test("Concurrent modifies from two threads through two instances keep one gapless change sequence")
    func concurrentModifies() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = ManualClock(start: CloudFixture.start)
        let clouds = [try Self.open(directory, clock: clock), try Self.open(directory, clock: clock)]
        try await clouds[0].database(forDevice: "setup").createZone(CloudFixture.zone)
        let perThread = 40
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<2 {
                group.addTask {
                    let database = clouds[thread].database(forDevice: "device\(thread)")
                    for index in 0..<perThread {
                        // Every writer also rewrites one shared record, to make the writes contend.
                        _ = try? await database.modify(
                            saving: [note("t\(thread)-\(index)"), note("shared", "\(thread)-\(index)")], deleting: [], savePolicy: .allKeys)
                    }
                }
            }
        }
        let database = clouds[1].database(forDevice: "reader")
        let all = try await ZoneChangesTests.allPages(database, since: nil, limit: 1)
        let names = all.flatMap(\.changed).map(\.recordID.recordName)
        #expect(names.count == 2 * perThread + 1 && Set(names).count == names.count)
        #expect(Set(all.flatMap(\.changed).map(\.changeTag)).count == names.count)
        // 160 saves in all, each with its own sequence: the last token covers sequence 160
        // (a token ends with its sequence, 8 bytes big-endian: see PositionKeys).
        #expect(all.last!.token.data.suffix(8).reduce(0) { $0 << 8 | Int64($1) } == Int64(4 * perThread))
    }
}
