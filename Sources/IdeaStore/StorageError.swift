import Foundation
import GRDB
import IdeaBoxCore

/// Why the data folder or its database can't be used, told so that a person can act on it:
/// the store turns Foundation's and SQLite's errors into these, so no library's own text
/// (`NSCocoaErrorDomain Code=512`, `SQLite error 26`) reaches the command line or the app.
public enum StorageError: UserFacingError, Equatable, Sendable {
    /// Something on the way to the data folder (the folder itself, or a parent) is a file.
    case folderIsAFile(path: String)
    /// The database file is not an SQLite database, or is damaged.
    case notADatabase(path: String)
    /// The disk holding the data folder has no room left.
    case diskFull(path: String)
    /// The data folder or its database can't be written (permissions, a read-only disk).
    case readOnly(path: String)

    /// What `error`, thrown while opening or writing the database in the folder `directory`,
    /// means to a person; nil for any other error.
    public init?(_ error: any Error, directory: URL) {
        if let error = error as? StorageError {
            self = error
        } else if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                self = .notADatabase(path: directory.appendingPathComponent(IdeaDatabase.fileName).path)
            case .SQLITE_FULL:
                self = .diskFull(path: directory.path)
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
                self = Self.fileInTheWay(of: directory).map { .folderIsAFile(path: $0) } ?? .readOnly(path: directory.path)
            default:
                return nil
            }
        } else if (error as NSError).domain == NSCocoaErrorDomain || (error as NSError).domain == NSPOSIXErrorDomain {
            if let file = Self.fileInTheWay(of: directory) {
                self = .folderIsAFile(path: file)
            } else if Self.posixCode(of: error) == ENOSPC || (error as NSError).code == CocoaError.fileWriteOutOfSpace.rawValue {
                self = .diskFull(path: directory.path)
            } else {
                self = .readOnly(path: Self.nearestExisting(directory).path)
            }
        } else {
            return nil
        }
    }

    /// One sentence: what is wrong and what to do about it.
    public func message(in language: Language) -> String {
        switch (self, language) {
        case let (.folderIsAFile(path), .english):
            "\(path) is a file, not a folder: move it out of the way, or choose another data folder with --data-dir."
        case let (.folderIsAFile(path), .traditionalChinese):
            "「\(path)」是檔案而不是資料夾：請把它移開，或用 --data-dir 指定其他資料夾"
        case let (.notADatabase(path), .english):
            "\(path) is not an IdeaBox database (damaged, or another kind of file): move it away to start afresh, or restore it from a backup."
        case let (.notADatabase(path), .traditionalChinese):
            "「\(path)」不是 IdeaBox 資料庫（已損毀，或是其他檔案）：請把它移開以重新開始，或從備份還原"
        case let (.diskFull(path), .english):
            "The disk holding \(path) is full: free some space and try again; nothing was changed."
        case let (.diskFull(path), .traditionalChinese):
            "「\(path)」所在的磁碟已滿：請釋出空間後再試一次；沒有變更任何資料"
        case let (.readOnly(path), .english):
            "IdeaBox can't write in \(path): make the folder writable, or choose another data folder with --data-dir."
        case let (.readOnly(path), .traditionalChinese):
            "IdeaBox 無法寫入「\(path)」：請讓這個資料夾可以寫入，或用 --data-dir 指定其他資料夾"
        }
    }

    /// The first file (not a folder) on the path from `/` down to `directory`, if any.
    private static func fileInTheWay(of directory: URL) -> String? {
        var path = ""
        for component in directory.standardizedFileURL.pathComponents.dropFirst() {
            path += "/" + component
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
            if !isDirectory.boolValue { return path }
        }
        return nil
    }

    /// `directory`, or its nearest parent that exists: the folder that refused a new entry.
    private static func nearestExisting(_ directory: URL) -> URL {
        var folder = directory.standardizedFileURL
        while !FileManager.default.fileExists(atPath: folder.path) && folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        return folder
    }

    /// The `errno` behind a Foundation error, if it says.
    private static func posixCode(of error: any Error) -> Int32? {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        return (error.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { posixCode(of: $0) }
    }
}
