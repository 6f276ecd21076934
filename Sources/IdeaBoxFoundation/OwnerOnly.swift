import Foundation

/// What IdeaBox writes is its user's alone, whatever the umask: the folders it makes are
/// 0700, and its databases (with their `-wal` and `-shm`), locks and settings are 0600. A
/// file an earlier version left readable by others is narrowed when it is next opened.
public enum OwnerOnly {
    /// The mode of IdeaBox's files: read and write for the owner only.
    public static let fileMode: mode_t = 0o600
    /// The mode of the folders IdeaBox makes.
    public static let directoryMode: mode_t = 0o700

    /// Makes `directory` and whichever of its parents are missing, each 0700. A folder that
    /// already exists keeps its mode: it may be one the user chose, such as a `--data-dir`.
    public static func createDirectory(_ directory: URL) throws {
        var missing: [URL] = []
        var current = directory.standardizedFileURLQuickly
        while !FileManager.default.fileExists(atPath: current.path), current.path != "/" {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        for folder in missing.reversed() {
            if mkdir(folder.path, directoryMode) != 0 && errno != EEXIST {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: folder.path])
            }
            // The umask may have taken bits away, never added any: 0700 exactly.
            _ = chmod(folder.path, directoryMode)
        }
    }

    /// `createDirectory` for a folder given by its path, which does nothing more than look
    /// when the folder is there: the everyday commands name their folders by path
    /// (`DataLocation.rootPath`).
    public static func createDirectory(path: String) throws {
        if FileManager.default.fileExists(atPath: path) { return }
        try createDirectory(URL(fileURLWithPath: path, isDirectory: true))
    }

    /// Makes the SQLite database at `file` if it is missing (SQLite gives its `-wal` and
    /// `-shm` the database's mode), and narrows it and those to 0600 if they are wider.
    public static func prepareDatabase(_ file: URL) throws {
        try prepareDatabase(path: file.path)
    }

    /// `prepareDatabase` for a file given by its path.
    public static func prepareDatabase(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        narrow(descriptor)
        close(descriptor)
        for suffix in ["-wal", "-shm", "-journal"] {
            narrow(path: path + suffix)
        }
    }

    /// Narrows the file at `path` to 0600 if it exists and is wider.
    public static func narrow(path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        _ = chmod(path, status.st_mode & 0o700)
    }

    /// Narrows the open file `descriptor` to 0600 if it is wider.
    public static func narrow(_ descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        _ = fchmod(descriptor, status.st_mode & 0o700)
    }
}
