import CloudKitModel
import CloudWebServices
import Crypto
import Foundation
import Hummingbird
import IdeaBoxFoundation
import NIOCore

/// The bytes POSTed to an upload URL, written to a file of their own as they arrive and
/// hashed on the way, so that an upload in flight holds one network buffer of memory, not
/// the whole asset. `remove()` deletes the file once the store has the bytes.
struct AssetUpload {
    /// The file the bytes are in (owner-only).
    let file: URL
    /// Their checksum and size.
    let reference: AssetReference

    /// Receives `body` into a new file in `folder`: `limitExceeded` past
    /// `AssetReference.maximumSize` bytes, `ClientLeft` if the client leaves halfway. A body
    /// that fails leaves no file behind.
    static func receive(_ body: RequestBody, into folder: URL) async throws -> AssetUpload {
        let file = folder.appendingPathComponent(UUID().uuidString.lowercased())
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, OwnerOnly.fileMode)
        guard descriptor >= 0 else {
            throw Self.cannotKeep()
        }
        var hasher = SHA256()
        var size = 0
        do {
            defer { close(descriptor) }
            for try await buffer in body {
                size += buffer.readableBytes
                guard size <= AssetReference.maximumSize else {
                    throw WebServicesError.limitExceeded("An asset is at most \(AssetReference.maximumSize >> 20) MiB.")
                }
                try buffer.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    guard Descriptor.writeAll(bytes, to: descriptor) else {
                        throw Self.cannotKeep()
                    }
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        guard let reference = AssetReference(checksum: AssetReference.checksum(of: hasher.finalize()), size: Int64(size)) else {
            try? FileManager.default.removeItem(at: file)
            throw WebServicesError.limitExceeded("An asset is at most \(AssetReference.maximumSize >> 20) MiB.")
        }
        return AssetUpload(file: file, reference: reference)
    }

    /// Deletes the file.
    func remove() {
        try? FileManager.default.removeItem(at: file)
    }

    /// The error for a spool file that cannot be made or written (a full disk, say), by `errno`.
    private static func cannotKeep() -> WebServicesError {
        WebServicesError(code: "INTERNAL_ERROR", reason: "The server cannot keep an upload now (\(String(cString: strerror(errno)))).")
    }
}
