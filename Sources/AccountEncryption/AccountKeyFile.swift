import Foundation
import IdeaBoxFoundation

/// The device's key file, `account.key` in its profile: the unlocked keyring, readable by
/// its owner only (0600, written whole and renamed into place), as ssh keeps a private key.
/// Whoever holds the device holds the keys; the server never sees this file.
public struct AccountKeyFile: Sendable {
    /// The file's name in a profile's folder.
    public static let fileName = "account.key"

    /// The file.
    public let url: URL

    /// The key file of the profile in `directory`.
    public init(directory: URL) {
        url = directory.appendingPathComponent(Self.fileName)
    }

    /// Whether the device holds a key file.
    public var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    /// What tells one version of the file from another (it is replaced whole, by a rename):
    /// its inode, size and modification time.
    public struct Version: Hashable, Sendable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
    }

    /// The file's present version, or nil while there is none; read without opening it.
    public func version() -> Version? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Version(
            inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// The keyring the file holds, or nil if there is none; throws `unreadableKeyring`.
    public func load() throws(AccountEncryptionError) -> AccountKeyring? {
        guard exists else { return nil }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .unreadableKeyring(reason: "\(url.path) cannot be read")
        }
        return try AccountKeyring(serialized: data)
    }

    /// Writes `keyring`, replacing the file whole.
    public func save(_ keyring: AccountKeyring) throws {
        let directory = url.deletingLastPathComponent()
        try OwnerOnly.createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(Self.fileName).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: Int(OwnerOnly.fileMode)]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        OwnerOnly.narrow(path: temporary.path)
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: keyring.serialized())
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Forgets the keys (encryption turned off, or the keys no longer the account's).
    public func remove() throws {
        if exists { try FileManager.default.removeItem(at: url) }
    }
}
