import Foundation
import IdeaBoxCore
import Synchronization

/// Where a server writes asset uploads as they arrive: a folder of its own, readable by its
/// owner only, and a count of the uploads in flight, which at most `maximumUploads` may be.
final class UploadSpool: Sendable {
    /// The folder.
    let folder: URL
    /// The most uploads received at once.
    let maximumUploads: Int
    private let inFlight = Mutex(0)

    /// A new folder under `parent` (the system's temporary folder by default).
    init(maximumUploads: Int, parent: URL = FileManager.default.temporaryDirectory) throws {
        folder = parent.appendingPathComponent("ideabox-uploads-\(UUID().uuidString.lowercased())", isDirectory: true)
        self.maximumUploads = maximumUploads
        try OwnerOnly.createDirectory(folder)
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
