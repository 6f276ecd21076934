import CloudKitModel
import Synchronization

/// The plain names behind hidden record names, as far as this device has seen them: a hidden
/// name is a one-way HMAC, so a deletion the remote reports (by hidden name) can only be
/// told by a device that knows which plain name it hides.
///
/// `SealedDatabase` fills it from every record it seals or opens; a device that starts with
/// records it synced earlier (the library's manifest) tells it their names first
/// (`SealedDatabase.rememberPlainNames`), so a deletion fetched in this run maps back.
public final class RecordNameBook: Sendable {
    private let names = Mutex<[RecordID: String]>([:])

    /// An empty book.
    public init() {}

    /// Notes that `remoteID` hides `plainName`.
    public func remember(_ plainName: String, as remoteID: RecordID) {
        names.withLock { $0[remoteID] = plainName }
    }

    /// The plain name `remoteID` hides, if this book knows it.
    public func plainName(of remoteID: RecordID) -> String? {
        names.withLock { $0[remoteID] }
    }
}
