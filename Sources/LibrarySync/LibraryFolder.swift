#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IdeaBoxFoundation

/// The library folder on disk: what a scan finds in it, and the only code that writes into
/// it. Every write is atomic and lands at a `LibraryPath`, inside the folder; folders that
/// turn out to be symbolic links are never written through.
public struct LibraryFolder: Sendable {
    /// The folder, such as `<data root>/profiles/<profile>/RawLibrary`.
    public let root: URL

    /// Where conflict copies go, inside the folder of the file that lost.
    public static let conflictsFolder = ".conflicts"

    /// A synced file as the disk has it now.
    public struct FileState: Equatable, Sendable {
        public var modified: Timestamp
        public var size: Int
    }

    /// What a scan found.
    public struct Scan: Sendable {
        /// The synced files.
        public var files: [LibraryPath: FileState] = [:]
        /// Files in the folder that are outside the synced layout (relative paths).
        public var unsynced: [String] = []
        /// Files refused, each with the reason (a symbolic link, an unreadable name).
        public var refused: [String] = []
    }

    public init(root: URL) {
        self.root = root
    }

    /// Lists the synced files with their times and sizes; reads no file's contents.
    public func scan() throws -> Scan {
        var scan = Scan()
        try createRootIfMissing()
        for (name, type, state) in try entries(of: root) {
            guard !name.hasPrefix(".") else { continue }
            if name == LibraryManifest.fileName { continue }
            if LibraryPath.folders.contains(name) {
                guard type == .folder else {
                    scan.refused.append(type == .link ? LibraryError.notAFolder(name).description : "\(name) is not a folder")
                    continue
                }
                for (child, childType, childState) in try entries(of: root.appendingPathComponent(name)) where !child.hasPrefix(".") {
                    record("\(name)/\(child)", type: childType, state: childState, into: &scan)
                }
            } else {
                record(name, type: type, state: state, into: &scan)
            }
        }
        return scan
    }

    private func record(_ relative: String, type: EntryType, state: FileState?, into scan: inout Scan) {
        switch type {
        case .link:
            scan.refused.append("\"\(relative)\" is a symbolic link: not synced")
        case .folder, .other:
            scan.unsynced.append(type == .folder ? relative + "/" : relative)
        case .file:
            guard let path = try? LibraryPath(relative) else {
                scan.unsynced.append(relative)
                return
            }
            if let state { scan.files[path] = state }
        }
    }

    /// The file at `path` now, or nil if there is no regular file there.
    public func state(of path: LibraryPath) -> FileState? {
        var info = stat()
        guard lstat(path.url(in: root).path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Self.state(info)
    }

    /// The bytes of the file at `path`.
    public func read(_ path: LibraryPath) throws -> Data {
        do {
            return try Data(contentsOf: path.url(in: root))
        } catch {
            throw LibraryError.io(path.text, reason: error.localizedDescription)
        }
    }

    /// Writes `data` at `path` atomically with its modification time set to `modified`,
    /// creating its folder if needed.
    public func write(_ data: Data, at path: LibraryPath, modified: Timestamp) throws {
        let url = path.url(in: root)
        try prepareFolder(of: url)
        try AtomicFile.write(data, to: url, modified: modified)
    }

    /// Files written together: each goes to a temporary file beside its target; `commit`
    /// flushes them (a large batch with one call), then renames each into place. A crash before the
    /// rename leaves the old file whole (and a hidden temporary file that a later sync removes).
    public struct StagedWrites: Sendable {
        fileprivate var items: [(temporary: URL, target: URL)] = []
        fileprivate var needsFileSystemFlush = false
        public init() {}
        public var isEmpty: Bool { items.isEmpty }
    }

    /// From how many staged files on one flush of the whole file system (`syncfs`) is
    /// cheaper than a flush per file. Below it each file is flushed on its own: `syncfs`
    /// also writes out every other program's pending data on that disk.
    public static let fileSystemFlushThreshold = 64

    /// Stages `data` for `path` with its modification time set to `modified`. `expected` is
    /// how many files the batch will hold: a small batch flushes each file as it is staged.
    public func stage(
        _ data: Data, at path: LibraryPath, modified: Timestamp, expected: Int, into staged: inout StagedWrites
    ) throws {
        let url = path.url(in: root)
        try prepareFolder(of: url)
        let durable = expected < Self.fileSystemFlushThreshold
        staged.items.append((try AtomicFile.stage(data, for: url, modified: modified, durable: durable), url))
        staged.needsFileSystemFlush = staged.needsFileSystemFlush || !durable
    }

    /// Makes staged writes durable and puts them in place.
    public func commit(_ staged: inout StagedWrites) throws {
        guard !staged.isEmpty else { return }
        if staged.needsFileSystemFlush { try AtomicFile.syncFileSystem(of: root) }
        var folders: Set<URL> = []
        for (temporary, target) in staged.items {
            try AtomicFile.commit(temporary, to: target)
            folders.insert(target.deletingLastPathComponent())
        }
        staged.items.removeAll()
        staged.needsFileSystemFlush = false
        folders.forEach(AtomicFile.syncFolder)
    }

    /// Removes temporary files that a crash left behind more than an hour ago.
    public func removeStaleTemporaryFiles(now: Timestamp) {
        for folder in [root] + LibraryPath.folders.map({ root.appendingPathComponent($0) }) {
            guard let entries = try? entries(of: folder) else { continue }
            for (name, type, state) in entries where type == .file && name.hasPrefix(".") && name.hasSuffix(AtomicFile.temporarySuffix) {
                guard let state, state.modified.milliseconds < now.milliseconds - 3_600_000 else { continue }
                unlink(folder.appendingPathComponent(name).path)
            }
        }
    }

    /// Deletes the file at `path`, if it is there.
    public func delete(_ path: LibraryPath) throws {
        let url = path.url(in: root)
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw LibraryError.io(path.text, reason: String(cString: strerror(errno)))
        }
        AtomicFile.syncFolder(url.deletingLastPathComponent())
    }

    /// Keeps `data`, the side that lost a conflict over `path`, in `.conflicts/` beside the
    /// file, named after the file, the loser's time and its side; returns the copy's relative path.
    @discardableResult
    public func keepConflictCopy(_ data: Data, of path: LibraryPath, side: String, modified: Timestamp) throws -> String {
        let folder = path.url(in: root).deletingLastPathComponent().appendingPathComponent(Self.conflictsFolder)
        try prepareFolder(of: folder.appendingPathComponent("x"))
        let stem = String(path.fileName.dropLast(".json".count).prefix(180))
        let stamp = modified.iso8601.replacingOccurrences(of: ":", with: "-")
        var name = "\(stem).\(stamp).\(side).json"
        var attempt = 1
        while FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            attempt += 1
            name = "\(stem).\(stamp).\(side)-\(attempt).json"
        }
        try AtomicFile.write(data, to: folder.appendingPathComponent(name), modified: modified)
        let parent = path.text.split(separator: "/").dropLast().joined(separator: "/")
        return (parent.isEmpty ? "" : parent + "/") + Self.conflictsFolder + "/" + name
    }

    /// Sets the modification time of the file at `path`.
    public func setModified(_ path: LibraryPath, _ time: Timestamp) throws {
        try AtomicFile.setModificationTime(path.url(in: root), time)
    }

    // MARK: Folders

    /// Creates the library folder if it is missing; refuses one that is a link or a file.
    public func createRootIfMissing() throws {
        var info = stat()
        if lstat(root.path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw LibraryError.notAFolder(root.path) }
            return
        }
        do {
            try OwnerOnly.createDirectory(root)
        } catch {
            throw LibraryError.io(root.path, reason: error.localizedDescription)
        }
    }

    /// Makes sure every folder between the library and `url` is a real folder (created if
    /// missing, refused if it is a link or a file).
    private func prepareFolder(of url: URL) throws {
        try createRootIfMissing()
        let relative = url.path.dropFirst(root.path.count).split(separator: "/").dropLast()
        var folder = root
        for part in relative {
            folder.appendPathComponent(String(part), isDirectory: true)
            var info = stat()
            if lstat(folder.path, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else { throw LibraryError.notAFolder(folder.path) }
            } else if mkdir(folder.path, OwnerOnly.directoryMode) != 0 && errno != EEXIST {
                throw LibraryError.io(folder.path, reason: String(cString: strerror(errno)))
            }
        }
    }

    private enum EntryType { case file, folder, link, other }

    /// The entries of `folder` with their types (not following links) and, for files, their
    /// times and sizes; names that are not UTF-8 are left out.
    private func entries(of folder: URL) throws -> [(name: String, type: EntryType, state: FileState?)] {
        guard let directory = opendir(folder.path) else {
            throw LibraryError.io(folder.path, reason: String(cString: strerror(errno)))
        }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        var result: [(name: String, type: EntryType, state: FileState?)] = []
        while let entry = readdir(directory) {
            var info = stat()
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
                let bytes = raw.prefix(while: { $0 != 0 })
                guard fstatat(descriptor, raw.baseAddress!.assumingMemoryBound(to: CChar.self), &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    return nil
                }
                return String(validating: bytes, as: UTF8.self)
            }
            guard let name, name != ".", name != ".." else { continue }
            let type: EntryType = switch info.st_mode & S_IFMT {
            case S_IFREG: .file
            case S_IFDIR: .folder
            case S_IFLNK: .link
            default: .other
            }
            result.append((name, type, type == .file ? Self.state(info) : nil))
        }
        return result.sorted { $0.name < $1.name }
    }

    private static func state(_ info: stat) -> FileState {
        let milliseconds = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
        return FileState(modified: Timestamp(milliseconds: milliseconds), size: Int(info.st_size))
    }
}
