import Foundation

/// An exclusive advisory lock on a file (`flock`), held until `unlock()`: serializes work
/// that several processes might start at once, such as creating a database's schema.
public struct FileLock: Sendable {
    private let descriptor: Int32

    /// Opens (creating if needed) the file at `url` and waits for its exclusive lock.
    public init(url: URL) throws {
        descriptor = Glibc.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, OwnerOnly.fileMode)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        OwnerOnly.narrow(descriptor)
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
    }

    /// Releases the lock and closes the file.
    public func unlock() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
