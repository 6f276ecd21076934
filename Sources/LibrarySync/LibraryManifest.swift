import Foundation
import IdeaBoxFoundation

/// `RawLibrary/sync_manifest.json`: what the library looked like after the last sync, in
/// the spec's format (`v`, `updatedAt`, `changeTokenData`, `files`), with a few keys of
/// ours beside them. Written atomically; never synced itself.
public struct LibraryManifest: Codable, Equatable, Sendable {
    /// One synced file as the last sync left it.
    public struct Entry: Codable, Equatable, Sendable {
        /// The relative path, also the key of `files`.
        public var path: String
        /// `sha256(path)`.
        public var recordName: String
        /// The file's modification time when the sync last wrote or sent it.
        public var lastLocalModifiedAt: Timestamp
        /// The record's modification date on the remote, as last seen.
        public var lastKnownServerModifiedAt: Timestamp?
        /// Ours: the record's change tag as last seen, for a conflict-checked save.
        public var recordChangeTag: String?
        /// Ours: the file's size in bytes then, so an edit that keeps the time is still seen.
        public var size: Int
    }

    /// The format's version.
    public var v = 1
    /// When the manifest was last written.
    public var updatedAt: Timestamp?
    /// The zone's change token (base64), the point the next pull starts from.
    public var changeTokenData: String?
    /// The synced files by path.
    public var files: [String: Entry] = [:]
    /// Ours: when the last sync finished, and the error that stopped the last one (nil if it worked).
    public var lastSyncAt: Timestamp?
    public var lastError: String?
    /// Ours: paths in the folder that are not synced and were already reported.
    public var reportedUnsynced: [String]?
    /// Ours: the account (and server) the files were synced with. Signed in to another, the
    /// manifest starts afresh: every file here is new to that account (nil in older manifests).
    public var account: String?

    /// The file's name inside the library folder.
    public static let fileName = "sync_manifest.json"

    public init() {}

    /// The manifest in `folder`, or an empty one if there is none yet.
    public static func load(from folder: URL) throws -> LibraryManifest {
        let url = folder.appendingPathComponent(fileName)
        // Only a missing manifest starts afresh: one that can't be read must not make every
        // file look new.
        guard FileManager.default.fileExists(atPath: url.path) else { return LibraryManifest() }
        do {
            return try JSONDecoder().decode(LibraryManifest.self, from: Data(contentsOf: url))
        } catch {
            throw LibraryError.unreadableManifest(url.path, reason: "\(error)")
        }
    }

    /// Writes the manifest into `folder` (temporary file, fsync, rename, fsync of the folder).
    public func save(to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try AtomicFile.write(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
    }
}
