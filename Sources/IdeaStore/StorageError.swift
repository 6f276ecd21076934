import Foundation
import GRDB
import IdeaModel

/// Why the data folder or its database can't be used, told so that a person can act on it:
/// the store turns Foundation's and SQLite's errors into these, so no library's own text
/// (`NSCocoaErrorDomain Code=512`, `SQLite error 26`) reaches the command line or the app.
public enum StorageError: UserFacingError, Equatable, Sendable {
    /// Something on the way to the data folder (the folder itself, or a parent) is a file.
    case folderIsAFile(path: String)
    /// The database file is damaged, or is not an SQLite database at all: `ideabox repair`
    /// keeps what can still be read. `options` are the command-line options that chose this
    /// database (`--data-dir D`, `--profile P`), which the repair needs too.
    case damaged(path: String, options: [String] = [])
    /// The disk holding the data folder has no room left.
    case diskFull(path: String)
    /// The data folder or its database can't be written (permissions, a read-only disk).
    case readOnly(path: String)
    /// Another process has the database open (the app, `sync --watch`), so it can't be
    /// repaired now; `options` as for `damaged`.
    case inUse(path: String, options: [String] = [])

    /// What `error`, thrown while opening, reading or writing the database in the folder
    /// `directory` (which `options` chose on the command line), means to a person; nil for
    /// any other error.
    public init?(_ error: any Error, directory: URL, options: [String] = []) {
        if let error = error as? StorageError {
            self = error
        } else if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                self = .damaged(path: directory.appendingPathComponent(IdeaDatabase.fileName).path, options: options)
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

    /// Whether the database file is damaged (`ideabox repair` is what to do).
    public var isDamage: Bool {
        if case .damaged = self { true } else { false }
    }

    /// One sentence: what is wrong and what to do about it.
    public func message(in language: Language) -> String {
        switch (self, language) {
        case let (.folderIsAFile(path), .english):
            "\(path) is a file, not a folder: move it out of the way, or choose another data folder with --data-dir."
        case let (.folderIsAFile(path), .traditionalChinese):
            "「\(path)」是檔案而不是資料夾：請把它移開，或用 --data-dir 指定其他資料夾"
        case let (.damaged(path, options), .english):
            "\(path) is damaged: run `\(Self.repairCommand(options))`, which keeps every idea it can still read and sets the damaged file aside; the next sync brings back the rest."
        case let (.damaged(path, options), .traditionalChinese):
            "「\(path)」已損毀：請執行 `\(Self.repairCommand(options))`，它會保留所有仍可讀取的靈感，並把損毀的檔案留在一旁；下次同步會補回其餘部分"
        case let (.diskFull(path), .english):
            "The disk holding \(path) is full: free some space and try again; nothing was changed."
        case let (.diskFull(path), .traditionalChinese):
            "「\(path)」所在的磁碟已滿：請釋出空間後再試一次；沒有變更任何資料"
        case let (.readOnly(path), .english):
            "IdeaBox can't write in \(path): make the folder writable, or choose another data folder with --data-dir."
        case let (.readOnly(path), .traditionalChinese):
            "IdeaBox 無法寫入「\(path)」：請讓這個資料夾可以寫入，或用 --data-dir 指定其他資料夾"
        case let (.inUse(path, options), .english):
            "\(path) is open in another IdeaBox (the app, or `sync --watch`): quit it, then run `\(Self.repairCommand(options))` again."
        case let (.inUse(path, options), .traditionalChinese):
            "「\(path)」正由另一個 IdeaBox（App 或 `sync --watch`）使用中：請先結束它，再執行 `\(Self.repairCommand(options))`"
        }
    }

    /// `ideabox repair` with `options`, each quoted for a POSIX shell where it needs it.
    private static func repairCommand(_ options: [String]) -> String {
        (["ideabox", "repair"] + options.map(shellWord)).joined(separator: " ")
    }

    /// `word` as a shell reads it back: as it is if it holds only characters no shell treats
    /// specially, else in single quotes.
    private static func shellWord(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_./:=@%+,".unicodeScalars.contains($0)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
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
