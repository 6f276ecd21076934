import Foundation
import IdeaBoxFoundation
import IdeaModel

/// What a command writes whole, never seen half done, written in pieces as it is made: the
/// bytes go to a temporary file, and only `commit()` puts them out. Replacing a file, the
/// temporary file is in the same folder, flushed to disk and renamed over it, and the folder
/// is flushed too: after a failure or a crash the file is the old one or the new one. For
/// standard output the temporary file is in the temporary folder (unlinked at once), copied
/// out at the end: a failure half way prints nothing. Closed without a commit, it leaves
/// nothing behind. An export of a million ideas holds a few buffers, not the file.
final class OutputFile {
    /// Where the pieces go: the temporary file.
    let descriptor: Int32
    /// The file replaced, or nil for standard output.
    private let path: String?
    /// The temporary file while it has a name (replacing a file).
    private var temporary: String?
    private let mode: mode_t
    private var isClosed = false

    /// Starts the output that replaces `path` (a new file is the user's alone, 0600; a file
    /// that was there keeps its permissions), or standard output's if `path` is nil.
    init(replacing path: String?) throws {
        self.path = path
        if let path {
            let url = URL(fileURLWithPath: path)
            var status = stat()
            mode = stat(path, &status) == 0 ? status.st_mode & 0o7777 : OwnerOnly.fileMode
            let temporary = url.deletingLastPathComponent()
                .appendingPathComponent(".\(url.lastPathComponent).\(UInt32.random(in: .min ... .max)).tmp").path
            descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
            guard descriptor >= 0 else { throw OutputFileError(path: path, errno: errno) }
            self.temporary = temporary
        } else {
            mode = OwnerOnly.fileMode
            let temporary = NSTemporaryDirectory() + "/.ideabox-output.\(UInt32.random(in: .min ... .max)).tmp"
            descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
            guard descriptor >= 0 else { throw OutputFileError(path: temporary, errno: errno) }
            unlink(temporary)
            self.temporary = nil
        }
    }

    /// What a failure to write the temporary file is reported as.
    func failure(_ code: Int32) -> OutputFileError {
        OutputFileError(path: path ?? temporary ?? NSTemporaryDirectory(), errno: code)
    }

    /// Forgets what was written so far, to begin again.
    func restart() throws {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else { throw failure(errno) }
    }

    /// Puts the output out whole: renames the flushed temporary file over the file, or copies
    /// it to standard output (a closed pipe ends that, as it ends any output).
    func commit() throws {
        guard let path, let temporary else {
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var offset: off_t = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                guard buffer.withUnsafeBytes({ Descriptor.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: STDOUT_FILENO) })
                else { break }
                offset += off_t(count)
            }
            return
        }
        guard fsync(descriptor) == 0 else { throw failure(errno) }
        // The umask may have narrowed the mode of a file that was there.
        fchmod(descriptor, mode)
        guard rename(temporary, path) == 0 else { throw failure(errno) }
        self.temporary = nil
        let folderDescriptor = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            Glibc.close(folderDescriptor)
        }
    }

    /// Closes the temporary file, and removes it unless it was committed; once.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
        if let temporary { unlink(temporary) }
    }

    deinit {
        close()
    }
}

/// A file a command was to write could not be written; nothing was changed.
struct OutputFileError: UserFacingError, Equatable {
    /// The file.
    var path: String
    /// Why, as `errno` said.
    var errno: Int32

    func message(in language: Language) -> String {
        switch (language, errno) {
        case (.english, ENOSPC): "Can't write \(path): the disk is full; it was left as it was."
        case (.english, EACCES), (.english, EPERM), (.english, EROFS): "Can't write \(path): permission denied; it was left as it was."
        case (.english, ENOENT), (.english, ENOTDIR): "Can't write \(path): there is no such folder."
        case (.english, EISDIR): "Can't write \(path): it is a folder."
        case (.english, _): "Can't write \(path); it was left as it was."
        case (.traditionalChinese, ENOSPC): "無法寫入 \(path)：磁碟已滿；檔案保持原樣"
        case (.traditionalChinese, EACCES), (.traditionalChinese, EPERM), (.traditionalChinese, EROFS):
            "無法寫入 \(path)：沒有寫入權限；檔案保持原樣"
        case (.traditionalChinese, ENOENT), (.traditionalChinese, ENOTDIR): "無法寫入 \(path)：沒有這個資料夾"
        case (.traditionalChinese, EISDIR): "無法寫入 \(path)：這是資料夾"
        case (.traditionalChinese, _): "無法寫入 \(path)；檔案保持原樣"
        }
    }
}
