import Foundation

/// Why the library could not be synced at all (a single file's trouble is logged instead).
public enum LibraryError: Error, Equatable, CustomStringConvertible {
    /// The manifest exists but is not one this program wrote.
    case unreadableManifest(String, reason: String)
    /// The library folder, or one of its synced folders, is a symbolic link or not a folder.
    case notAFolder(String)
    /// A file system call failed.
    case io(String, reason: String)

    public var description: String {
        switch self {
        case let .unreadableManifest(path, reason): "The library manifest \(path) can't be read: \(reason)"
        case let .notAFolder(path): "\(path) is not a folder (a symbolic link or a file): the library is not synced through it"
        case let .io(path, reason): "\(path): \(reason)"
        }
    }
}
