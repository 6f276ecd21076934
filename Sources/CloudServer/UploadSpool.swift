import Foundation
import IdeaBoxFoundation
import Synchronization

/// Where a server writes asset uploads as they arrive: a folder of its own, readable by its
/// owner only, and a count of the uploads in flight, which at most `maximumUploads` may be.
final class UploadSpool: Sendable {
    /// The folder.
    let folder: URL
    /// The most uploads received at once.
    let maximumUploads: Int
    private let inFlight = Mutex(0)
    private static let prefix = "ideabox-uploads-"

    /// A new folder under `parent`, named for this process. The folders there of processes
    /// that have ended (a server killed mid-upload) are removed first.
    init(maximumUploads: Int, parent: URL) throws {
        try OwnerOnly.createDirectory(parent)
        Self.removeAbandoned(in: parent)
        folder = parent.appendingPathComponent(
            "\(Self.prefix)\(getpid())-\(UUID().uuidString.lowercased())", isDirectory: true)
        self.maximumUploads = maximumUploads
        try OwnerOnly.createDirectory(folder)
    }

    /// Removes the spool folders in `parent` whose process no longer runs.
    private static func removeAbandoned(in parent: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), kill(pid, 0) == -1, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
    }

    /// Takes a place for one upload; false if all are taken.
    func claim() -> Bool {
        inFlight.withLock { count in
            guard count < maximumUploads else { return false }
            count += 1
            return true
        }
    }

    /// Gives back a place `claim` took.
    func release() {
        inFlight.withLock { $0 -= 1 }
    }

    /// Deletes the folder and whatever is left in it.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
