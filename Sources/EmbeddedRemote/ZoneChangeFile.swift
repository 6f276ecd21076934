import CloudKitModel
import Foundation
import Glibc
import IdeaBoxFoundation

/// How the processes of one data root tell each other that the embedded remote changed:
/// each committed write appends a line `account<TAB>zone<TAB>device` to a small file beside
/// the remote, which listeners watch with inotify, so no process polls the database.
///
/// Announcing is best effort: a device that misses a line still converges on its next
/// fetch. The file starts over once it passes `maximumSize`; a reader that finds it shorter
/// than where it stood takes every watched zone as changed.
struct ZoneChangeFile: Sendable {
    /// One announcement.
    struct Line: Equatable {
        var account: String
        var zone: RecordZoneID
        var device: String
    }

    /// The size after which the next announcement starts the file over.
    static let maximumSize = 1 << 20
    /// The file's name: the remote's, with this suffix.
    static let suffix = "-changes"

    /// Where the file is.
    let url: URL

    /// Appends a line for each of `zones`: one `write` with `O_APPEND`, so lines of
    /// concurrent writers never interleave.
    func announce(account: String, zones: Set<RecordZoneID>, device: String) {
        guard !zones.isEmpty else { return }
        let text = zones.map { [account, $0.zoneName, device].map(Self.field).joined(separator: "\t") + "\n" }.joined()
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, OwnerOnly.fileMode)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var status = stat()
        if fstat(fd, &status) == 0, Int(status.st_size) > Self.maximumSize {
            _ = ftruncate(fd, 0)
        }
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Makes the file if it is missing, readable by its owner only.
    func create() throws {
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, OwnerOnly.fileMode)
        guard fd >= 0 else { throw CloudError.internalError }
        OwnerOnly.narrow(fd)
        close(fd)
    }

    /// The file's size now: a cursor after every line written so far.
    func size() -> Int {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// The whole lines after byte `offset`, and the offset after the last of them; nil if
    /// the file is shorter than `offset` (it started over).
    func lines(after offset: Int) -> (lines: [Line], end: Int)? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return ([], offset) }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), Int(size) >= offset else { return nil }
        guard Int(size) > offset else { return ([], offset) }
        try? handle.seek(toOffset: UInt64(offset))
        let data = (try? handle.read(upToCount: Int(size) - offset)) ?? Data()
        guard let last = data.lastIndex(of: UInt8(ascii: "\n")) else { return ([], offset) }
        let whole = data[data.startIndex...last]
        let lines = whole.split(separator: UInt8(ascii: "\n")).compactMap { bytes -> Line? in
            let fields = bytes.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 3 else { return nil }
            return Line(account: fields[0], zone: RecordZoneID(zoneName: fields[1]), device: fields[2])
        }
        return (lines, offset + whole.count)
    }

    /// A field with tabs and line breaks replaced, so it cannot split a line.
    private static func field(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }
}
