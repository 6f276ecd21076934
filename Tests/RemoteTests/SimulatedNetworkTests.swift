import CloudKitModel
import EmbeddedRemote
import Foundation
import GRDB
import IdeaBoxFoundation
@testable import SQLiteRecordStore
import Testing

/// `SimulatedNetwork`'s file: its own migrations, and the devices and faults it takes over
/// from the files that kept them before (its operations are `FaultTests`' and `AccountTests`').
@Suite struct SimulatedNetworkTests {
    private static let clock = WallClock { Timestamp(milliseconds: 0) }

    @Test("An embedded remote an earlier version wrote opens with its devices and faults moved to the network's file, and its record store holds server tables only")
    func embeddedRemoteMovesItsNetworkOut() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.writeEarlierFile(folder.appendingPathComponent(SimulatedCloud.fileName))

        let cloud = try SimulatedCloud.open(directory: folder, clock: Self.clock)
        try Self.expectMoved(cloud.network)
        #expect(try cloud.status(device: "a").recordCount == 1)
        let tables = try DatabaseQueue(path: folder.appendingPathComponent(SimulatedCloud.fileName).path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables.contains("record") && !tables.contains("device") && !tables.contains("scriptedError") && !tables.contains("errorRate"))

        // Opened again (another process, a later run), nothing is copied twice.
        try Self.expectMoved(try SimulatedCloud.open(directory: folder, clock: Self.clock).network)
    }

    @Test("A served profile's earlier faults file gives its devices and faults to the network's file")
    func servedProfileMovesItsFaults() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.writeEarlierFile(folder.appendingPathComponent(SimulatedCloud.servedFaultsFileName))
        try Self.expectMoved(try SimulatedNetwork.open(directory: folder, earlierFile: SimulatedCloud.servedFaultsFileName))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(SimulatedNetwork.fileName).path))
    }

    @Test("A new network signs every device in to the default account, online, with no faults; a store made new has no simulator tables")
    func newFiles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let network = try SimulatedNetwork.open(directory: folder, earlierFile: SimulatedCloud.fileName)
        #expect(try network.signedInAccount(device: "a") == SimulatedNetwork.defaultAccount)
        #expect(try network.status(device: "a").errorRates.isEmpty && !network.isOffline(device: "a"))
        let store = try SQLiteRecordStore.inMemory(clock: Self.clock)
        let tables = try store.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(tables.contains("record") && tables.allSatisfy { !["device", "scriptedError", "errorRate"].contains($0) })
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SimulatedNetworkTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A remote file as the release before the network's own file left it: device `a`
    /// offline with latency, a scripted error and an error rate; device `b` signed out;
    /// one record in the default account.
    private static func writeEarlierFile(_ url: URL) throws {
        let earlier = try DatabaseQueue(path: url.path)
        try SQLiteSchema.migrator.migrate(earlier, upTo: SQLiteSchema.Migration.assetChunks.rawValue)
        try earlier.write { db in
            try db.execute(sql: """
                INSERT INTO device (name, account, isOffline, latencyMilliseconds) VALUES ('a', 'default', 1, 250), ('b', NULL, 0, 0);
                INSERT INTO scriptedError (device, operation, error, failsAfterApplying) VALUES ('a', 'modify', '{"internalError":{}}', 1);
                INSERT INTO errorRate (device, operation, probability, error) VALUES ('a', NULL, 0.25, '{"networkFailure":{}}');
                INSERT INTO zone (account, name, createdAt, changeSequence) VALUES ('default', 'Ideas', 0, 1);
                INSERT INTO record (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields)
                    VALUES (1, 'one', 1, 'Idea', '1.1', 0, 0, '{}');
                """)
        }
        try earlier.close()
    }

    /// Whether `network` holds what `writeEarlierFile` wrote, once.
    private static func expectMoved(_ network: SimulatedNetwork) throws {
        let a = try network.status(device: "a")
        #expect(a.account == "default" && a.isOffline && a.latencyMilliseconds == 250)
        #expect(a.scriptedErrors == [ScriptedError(.internalError, operation: .modify, failsAfterApplying: true)])
        #expect(a.errorRates == [ErrorRate(probability: 0.25, error: .networkFailure)])
        #expect(try network.signedInAccount(device: "b") == nil)
    }
}
