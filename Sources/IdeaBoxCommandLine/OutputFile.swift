import Foundation
import IdeaBoxFoundation
import IdeaModel

/// A file a command writes whole, never seen half done: the bytes go to a temporary file in
/// the same folder, are flushed to disk and renamed over the file; the folder is flushed
/// too. After a failure or a crash the file is the old one or the new one.
enum OutputFile {
    /// Replaces the file at `path` with `bytes`. A new file is the user's alone (0600); a
    /// file that was there keeps its permissions.
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        var status = stat()
        let mode = stat(path, &status) == 0 ? status.st_mode & 0o7777 : OwnerOnly.fileMode
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UInt32.random(in: .min ... .max)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw OutputFileError(path: path, errno: errno) }
        let written = bytes.withUnsafeBytes { Descriptor.writeAll($0, to: descriptor) } && fsync(descriptor) == 0
        let failure = errno
        // The umask may have narrowed the mode of a file that was there.
        if written { fchmod(descriptor, mode) }
        close(descriptor)
        guard written, rename(temporary.path, path) == 0 else {
            let code = written ? errno : failure
            unlink(temporary.path)
            throw OutputFileError(path: path, errno: code)
        }
        let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
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
