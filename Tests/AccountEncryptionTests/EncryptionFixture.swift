import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import Synchronization

/// What the suites share: scrypt cheap enough for a test, seeded randomness, the app's zones
/// and records with known words, and a sink that collects refusals.
enum EncryptionFixture {
    /// scrypt at 2^4 rounds: the same code path as the real parameters, in microseconds.
    static let fastScrypt = ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!
    static let passphrase = "correct horse 電池 staple"
    static let container = "iCloud.com.example.IdeaBox"
    static let ideas = RecordZoneID(zoneName: "Ideas")
    static let library = RecordZoneID(zoneName: "RawLibraryZone")
    static let now = Timestamp(milliseconds: 1_764_061_200_000)

    /// A new account's envelope, keyring and recovery key, the same for a given seed.
    static func creation(seed: UInt64 = 1) throws -> KeyEnvelope.Creation {
        try KeyEnvelope.make(passphrase: passphrase, scrypt: fastScrypt, random: .seeded(seed))
    }

    static func sealer(_ keyring: AccountKeyring, seed: UInt64 = 7) -> RecordSealer {
        RecordSealer(keyring: keyring, containerID: container, hiddenNameZones: [library], random: .seeded(seed))
    }

    /// An idea record (the shape of IdeaSync's) whose title and description hold `words`.
    static func idea(_ name: String, title: String, description: String = "", deleted: Bool = false) -> RemoteRecord {
        RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: name, zoneID: ideas),
            fields: [
                "id": .string(name), "title": .string(title), "description": .string(description),
                "isCompleted": .int64(0), "createdAt": .timestamp(now), "updatedAt": .timestamp(now),
                "deviceId": .string("device-a"), "version": .int64(3), "isDeleted": .int64(deleted ? 1 : 0),
                "fieldStamps": .string("1764061200000;1764061200000;1764061200000"),
            ])
    }

    /// A library record (the shape of LibrarySync's: named sha256(path)).
    static func libraryFile(path: String, data: FieldValue) -> RemoteRecord {
        RemoteRecord(
            recordType: "RawLibraryFile", recordID: RecordID(recordName: sha256Hex(path), zoneID: library),
            fields: ["filename": .string(String(path.split(separator: "/").last!)), "path": .string(path), "filedata": data])
    }

    static func sha256Hex(_ text: String) -> String {
        LibraryName.sha256Hex(text)
    }

    /// A private in-memory remote and one device's client of it.
    static func remote() throws -> (cloud: SimulatedCloud, database: any CloudDatabase) {
        let cloud = try SimulatedCloud.inMemory(clock: .fixed(now), random: SeededRandomNumberGenerator(seed: 3), sleeper: Sleeper { _ in })
        return (cloud, cloud.database(forDevice: "device-a"))
    }
}

/// The refusals a `SealedDatabase` reported.
final class RefusalLog: Sendable {
    private let lines = Mutex<[OpenFailure]>([])

    var failures: [OpenFailure] { lines.withLock { $0 } }

    var sink: @Sendable (OpenFailure) -> Void {
        { failure in self.lines.withLock { $0.append(failure) } }
    }
}
