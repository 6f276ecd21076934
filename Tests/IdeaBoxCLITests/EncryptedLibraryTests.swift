import DatabaseDamage
import Foundation
import ProcessTestSupport
import Testing

/// The library folder through every change of an account's encryption, on two devices (C and
/// D) of the embedded remote, with `Favorite.json`, two files in `Items/` (one of 3 MB, which
/// travels as an asset, one with a Chinese name) and one in `FavoriteItems/`: after the change
/// and a `library sync` on both, both folders hold every file with the same bytes, nothing was
/// received or deleted, and a new device gets all of them from the remote. Each command is
/// awaited (its wait holds a thread of its own); passphrases come on standard input.
@Suite(.takesTurns) struct EncryptedLibraryTests {
    /// A change of the account's encryption, and how D follows it.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        /// C turns encryption on and syncs its library, then D unlocks and syncs.
        case enable
        /// C turns encryption on, and D unlocks and syncs its library before C does.
        case unlock
        /// C rotates the key; D follows without the passphrase.
        case rotate
        /// C resets the key; D unlocks with the new passphrase.
        case reset
        /// C turns encryption off; D lets go of its key.
        case disable

        var testDescription: String { rawValue }
    }

    private static let fast: [String: String?] = ["IDEABOX_TEST_SCRYPT": "fast"]
    private static let passphrase = "correct horse battery"
    private static let newPassphrase = "新的密碼 fresh words"
    private static let files: [String: Data] = [
        "Favorite.json": Data(#"["一號","two"]"#.utf8),
        "Items/靈感筆記.json": Data(#"{"title":"靈感筆記","body":"第一"}"#.utf8),
        "Items/large.json": Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }),
        "FavoriteItems/fav.json": Data(#"{"favorite":true}"#.utf8),
    ]
    private static let nothingDone = "Library synced: 0 sent, 0 deleted remotely, 0 received, 0 deleted here, 0 conflicts.\n"

    @Test(arguments: Change.allCases)
    func everyFileStaysOnBothDevicesAndOnTheRemote(change: Change) async throws {
        let sandbox = try Sandbox()
        try Self.write(Self.files, into: library(of: "C", in: sandbox))
        #expect(try await succeed(on: "C", ["library", "sync"], in: sandbox)
            == "Library synced: 4 sent, 0 deleted remotely, 0 received, 0 deleted here, 0 conflicts.\n")
        #expect(try await succeed(on: "D", ["library", "sync"], in: sandbox)
            == "Library synced: 0 sent, 0 deleted remotely, 4 received, 0 deleted here, 0 conflicts.\n")

        let passphrase = try await make(change, in: sandbox)

        for profile in ["C", "D"] {
            #expect(try Self.contents(of: library(of: profile, in: sandbox)) == Self.files, "\(profile)'s library after \(change)")
            let status = try await libraryStatus(of: profile, in: sandbox)
            #expect(status.files == 4 && status.pendingUploads == 0 && status.pendingDeletes == 0 && status.pendingDownloads == 0)
        }
        if let passphrase {
            try await succeed(on: "E", ["account", "unlock"], input: "\(passphrase)\n", in: sandbox)
        }
        #expect(try await succeed(on: "E", ["library", "sync"], in: sandbox)
            == "Library synced: 0 sent, 0 deleted remotely, 4 received, 0 deleted here, 0 conflicts.\n")
        #expect(try Self.contents(of: library(of: "E", in: sandbox)) == Self.files, "a new device after \(change)")
    }

    @Test func aResetThatStopsBeforeTheLibraryWentUpLeavesTheLibrarysRecordsOnTheRemote() async throws {
        let sandbox = try Sandbox()
        try Self.write(Self.files, into: library(of: "C", in: sandbox))
        try await succeed(on: "C", ["library", "sync"], in: sandbox)
        try await succeed(on: "D", ["library", "sync"], in: sandbox)
        _ = try await make(.enable, in: sandbox)

        // The 3 MB file's upload fails: the reset stops once the new key is published. The
        // library's records under the old key stay until its files are up under the new one:
        // an app still on the old key would take their removal for files deleted.
        try await succeed(on: "C", ["remote", "fault", "script", "internalError", "--operation", "uploadAsset"], in: sandbox)
        let stopped = try await sandbox.run(
            ["account", "encryption", "reset", "--yes", "--profile", "C"], environment: Self.fast,
            input: Data("\(Self.newPassphrase)\n\(Self.newPassphrase)\n".utf8))
        #expect(stopped.status != 0, "\(stopped)")
        #expect(try await libraryRecordCount(in: sandbox) == 4)

        let reset = try await succeed(
            on: "C", ["account", "encryption", "reset", "--yes"], input: "\(Self.passphrase)\n\(Self.passphrase)\n", in: sandbox)
        #expect(reset.contains("0 ideas and 4 library files were sealed again from this device"), "\(reset)")
        #expect(try await libraryRecordCount(in: sandbox) == 4, "the old key's records are gone")
        try await unlockAndSync("D", passphrase: Self.passphrase, in: sandbox)
        try await unlockAndSync(
            "E", passphrase: Self.passphrase, in: sandbox,
            expecting: "Library synced: 0 sent, 0 deleted remotely, 4 received, 0 deleted here, 0 conflicts.\n")
        for profile in ["C", "D", "E"] {
            #expect(try Self.contents(of: library(of: profile, in: sandbox)) == Self.files, "\(profile)'s library")
        }
    }

    // MARK: Helpers

    /// Makes `change` on C and follows it on D, each device's library syncs doing nothing;
    /// returns the passphrase a new device unlocks with, nil once encryption is off.
    private func make(_ change: Change, in sandbox: Sandbox) async throws -> String? {
        try await succeed(
            on: "C", ["account", "encryption", "enable"], input: "\(Self.passphrase)\n\(Self.passphrase)\n", in: sandbox)
        if change == .unlock {
            try await unlockAndSync("D", passphrase: Self.passphrase, in: sandbox)
            #expect(try await succeed(on: "C", ["library", "sync"], in: sandbox) == Self.nothingDone)
            return Self.passphrase
        }
        #expect(try await succeed(on: "C", ["library", "sync"], in: sandbox) == Self.nothingDone)
        try await unlockAndSync("D", passphrase: Self.passphrase, in: sandbox)
        switch change {
        case .enable, .unlock:
            return Self.passphrase
        case .rotate:
            try await succeed(on: "C", ["account", "encryption", "rotate"], input: "\(Self.passphrase)\n", in: sandbox)
            #expect(try await succeed(on: "C", ["library", "sync"], in: sandbox) == Self.nothingDone)
            #expect(try await succeed(on: "D", ["library", "sync"], in: sandbox) == Self.nothingDone)
            return Self.passphrase
        case .reset:
            let reset = try await succeed(
                on: "C", ["account", "encryption", "reset", "--yes"], input: "\(Self.newPassphrase)\n\(Self.newPassphrase)\n", in: sandbox)
            #expect(reset.contains("0 ideas and 4 library files were sealed again from this device"), "\(reset)")
            #expect(try await succeed(on: "C", ["library", "sync"], in: sandbox) == Self.nothingDone)
            try await unlockAndSync("D", passphrase: Self.newPassphrase, in: sandbox)
            return Self.newPassphrase
        case .disable:
            try await succeed(on: "C", ["account", "encryption", "disable"], input: "\(Self.passphrase)\n", in: sandbox)
            #expect(try await succeed(on: "C", ["library", "sync"], in: sandbox) == Self.nothingDone)
            try await succeed(on: "D", ["account", "encryption", "disable"], in: sandbox)
            #expect(try await succeed(on: "D", ["library", "sync"], in: sandbox) == Self.nothingDone)
            return nil
        }
    }

    /// Unlocks `profile` and syncs its library, which must say `expected`.
    private func unlockAndSync(
        _ profile: String, passphrase: String, in sandbox: Sandbox, expecting expected: String = Self.nothingDone,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await succeed(on: profile, ["account", "unlock"], input: "\(passphrase)\n", in: sandbox, sourceLocation: sourceLocation)
        #expect(try await succeed(on: profile, ["library", "sync"], in: sandbox) == expected, sourceLocation: sourceLocation)
    }

    /// Runs `ideabox arguments… --profile profile`; it must succeed quietly. Returns its stdout.
    @discardableResult
    private func succeed(
        on profile: String, _ arguments: [String], input: String? = nil, in sandbox: Sandbox,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await sandbox.run(arguments + ["--profile", profile], environment: Self.fast, input: input.map { Data($0.utf8) })
        #expect(
            result.status == 0 && result.stderr.isEmpty,
            "ideabox \(arguments.joined(separator: " ")) on \(profile) failed:\n\(result)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// What `library status --json` says.
    private struct LibraryStatus: Decodable {
        var files: Int
        var pendingUploads: Int
        var pendingDeletes: Int
        var pendingDownloads: Int?
    }

    private func libraryStatus(of profile: String, in sandbox: Sandbox) async throws -> LibraryStatus {
        let output = try await succeed(on: profile, ["library", "status", "--json"], in: sandbox)
        return try JSONDecoder().decode(LibraryStatus.self, from: Data(output.utf8))
    }

    /// How many records the embedded remote's library zone holds.
    private func libraryRecordCount(in sandbox: Sandbox) async throws -> Int {
        let file = sandbox.dataRoot.appendingPathComponent("remote.sqlite")
        return try await OwnThread.run {
            try DatabaseRows.texts(
                "SELECT record.recordName FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.name = 'RawLibraryZone'", in: file)
        }.count
    }

    private func library(of profile: String, in sandbox: Sandbox) -> URL {
        sandbox.dataRoot.appendingPathComponent("profiles/\(profile)/RawLibrary")
    }

    private static func write(_ files: [String: Data], into library: URL) throws {
        for (path, data) in files {
            let url = library.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    /// Every file of the synced layout in `library` (none hidden), by path.
    private static func contents(of library: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        if let favorite = FileManager.default.contents(atPath: library.appendingPathComponent("Favorite.json").path) {
            files["Favorite.json"] = favorite
        }
        for folder in ["Items", "FavoriteItems"] {
            let url = library.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where !name.hasPrefix(".") {
                files["\(folder)/\(name)"] = try Data(contentsOf: url.appendingPathComponent(name))
            }
        }
        return files
    }
}
