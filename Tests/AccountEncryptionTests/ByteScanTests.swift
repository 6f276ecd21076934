import AccountEncryption
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import Testing

/// The remote's own files, read byte by byte after a sync through `SealedDatabase`: no word
/// of an idea, no path or file content of the library, no name that confirms a path, and not
/// the passphrase. The same records sent plain are found by the same scan, so it can see.
@Suite("Nothing in clear on the remote")
struct ByteScanTests {
    private static let words = ["Zanzibar", "marmalade", "秘密計畫", "牛奶糖", "Items/繁體筆記.json", "FavoriteItems/zanzibar-notes.json"]

    @Test("Sealed: none of the words, paths, path hashes or the passphrase are anywhere in the remote's files")
    func sealedLeavesNothing() async throws {
        let bytes = try await remoteBytes(sealed: true)
        for word in Self.words + [EncryptionFixture.passphrase] + paths.map(EncryptionFixture.sha256Hex) {
            #expect(bytes.firstRange(of: Data(word.utf8)) == nil, "found \(word)")
        }
    }

    @Test("Plain: the same scan finds every word, so it can see them")
    func plainShowsEverything() async throws {
        let bytes = try await remoteBytes(sealed: false)
        for word in Self.words {
            #expect(bytes.firstRange(of: Data(word.utf8)) != nil, "did not find \(word)")
        }
    }

    private var paths: [String] { ["Items/繁體筆記.json", "FavoriteItems/zanzibar-notes.json"] }

    /// Every byte of every file the remote keeps under a new folder, after saving ideas,
    /// a tombstone and library files (one inline, one as an asset) through a sealed or a
    /// plain client.
    private func remoteBytes(sealed: Bool) async throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bytescan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cloud = try SimulatedCloud.open(directory: folder, clock: .fixed(EncryptionFixture.now))
        let device = cloud.database(forDevice: "device-a")
        let made = try EncryptionFixture.creation()
        let database: any CloudDatabase = sealed
            ? SealedDatabase(base: device, sealer: EncryptionFixture.sealer(made.keyring), report: { _ in }) : device
        if sealed { _ = try await EnvelopeStore(database: device).publish(made.envelope) }
        try await database.createZone(EncryptionFixture.ideas)
        try await database.createZone(EncryptionFixture.library)
        // Every word is in a record that stays: a deleted record's old bytes outlive its
        // delete only until SQLite reuses their page, which the plain scan cannot count on.
        let ideas = [
            EncryptionFixture.idea("a", title: "Zanzibar marmalade", description: "秘密計畫"),
            EncryptionFixture.idea("b", title: "牛奶糖", description: "Zanzibar"),
            EncryptionFixture.idea("c", title: "牛奶糖 and Zanzibar, kept"),
        ]
        _ = try await database.modify(saving: ideas, deleting: [], savePolicy: .allKeys)
        _ = try await database.modify(saving: [EncryptionFixture.idea("b", title: "", deleted: true)], deleting: [], savePolicy: .allKeys)
        let large = try await database.uploadAsset(Data(String(repeating: "marmalade 秘密計畫 ", count: 60_000).utf8))
        let files = [
            EncryptionFixture.libraryFile(path: paths[0], data: .bytes(Data("{\"note\":\"牛奶糖 Zanzibar\"}".utf8))),
            EncryptionFixture.libraryFile(path: paths[1], data: .asset(large)),
        ]
        _ = try await database.modify(saving: files, deleting: [], savePolicy: .allKeys)
        var bytes = Data()
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
        for name in names {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            bytes.append(try Data(contentsOf: url))
        }
        #expect(bytes.count > 10_000)
        return bytes
    }
}
