#if canImport(Glibc)
import Glibc
#endif
import CFileSystem
import Foundation
import IdeaBoxFoundation

/// Writes that are never seen half done: the bytes go to a temporary file beside the
/// target, are flushed to disk, and are renamed over the target; the folder is flushed too,
/// so after a crash the file is either the old one or the new one.
enum AtomicFile {
    /// The suffix of temporary files; they also start with a dot, so no scan sees them.
    static let temporarySuffix = ".tmp"

    /// Writes `data` to `url`, setting its modification time to `modified` if given.
    static func write(_ data: some DataProtocol, to url: URL, modified: Timestamp? = nil) throws {
        let temporary = try stage(data, for: url, modified: modified, durable: true)
        try commit(temporary, to: url)
        syncFolder(url.deletingLastPathComponent())
    }

    /// Writes `data` to a temporary file beside `url` and returns it; `durable` flushes it to
    /// disk (otherwise the caller flushes the file system before renaming).
    static func stage(_ data: some DataProtocol, for url: URL, modified: Timestamp?, durable: Bool) throws -> URL {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UInt32.random(in: .min ... .max))\(temporarySuffix)")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, OwnerOnly.fileMode)
        guard fd >= 0 else { throw LibraryError.io(temporary.path, reason: String(cString: strerror(errno))) }
        var written = true
        for region in data.regions where written {
            written = region.withUnsafeBytes { Descriptor.writeAll($0, to: fd) }
        }
        let failure = errno
        if written, let modified { setModificationTime(fd: fd, modified) }
        guard written, !durable || fsync(fd) == 0 else {
            let reason = String(cString: strerror(written ? errno : failure))
            close(fd)
            unlink(temporary.path)
            throw LibraryError.io(url.path, reason: reason)
        }
        close(fd)
        return temporary
    }

    /// Renames a staged file over `url` (the caller flushes the folder).
    static func commit(_ temporary: URL, to url: URL) throws {
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw LibraryError.io(url.path, reason: reason)
        }
    }

    /// Flushes every file written on the file system of `folder` to disk: one call for many
    /// staged files instead of one `fsync` each.
    static func syncFileSystem(of folder: URL) throws {
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError.io(folder.path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard cfs_syncfs(fd) == 0 else { throw LibraryError.io(folder.path, reason: String(cString: strerror(errno))) }
    }

    /// Flushes a folder's entries (a rename or an unlink in it) to disk.
    static func syncFolder(_ folder: URL) {
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func setModificationTime(fd: Int32, _ time: Timestamp) {
        let spec = timespec(time)
        let times = [spec, spec]
        futimens(fd, times)
    }

    /// Sets the access and modification times of the file at `url` (not following a link).
    static func setModificationTime(_ url: URL, _ time: Timestamp) throws {
        let spec = timespec(time)
        guard utimensat(AT_FDCWD, url.path, [spec, spec], AT_SYMLINK_NOFOLLOW) == 0 else {
            throw LibraryError.io(url.path, reason: String(cString: strerror(errno)))
        }
    }

    private static func timespec(_ time: Timestamp) -> Glibc.timespec {
        let (seconds, milliseconds) = time.milliseconds.quotientAndRemainder(dividingBy: 1000)
        return milliseconds >= 0
            ? Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(milliseconds) * 1_000_000)
            : Glibc.timespec(tv_sec: Int(seconds) - 1, tv_nsec: Int(1000 + milliseconds) * 1_000_000)
    }
}
