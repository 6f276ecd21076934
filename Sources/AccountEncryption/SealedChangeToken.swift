import CloudKitModel
import Foundation

/// The change tokens a sealed remote hands out: the remote's own token behind a prefix that
/// names the key the records were read under, so that a token is only ever used under the
/// state it was read in.
///
/// A device that was plain, locked or under another key skipped records it could not read
/// (sealed ones while plain, plain ones while sealed, ones under a key it lacked) while its
/// token moved past them. Once the account's encryption or the device's current key changes,
/// its stored token no longer fits: `unwrap` answers `changeTokenExpired`, and the sync
/// fetches everything again under the new state, as it does for any expired token.
///
/// ```
/// "IdeaBox sealed token v1\n" (24)  key id (8)  the remote's token
/// ```
enum SealedChangeToken {
    private static let prefix = Array("IdeaBox sealed token v1\n".utf8)

    /// `token` read under the key `key`.
    static func wrap(_ token: ChangeToken, key: AccountKeyID) -> ChangeToken {
        var data = Data(prefix)
        data.append(contentsOf: key.bytes)
        data.append(token.data)
        return ChangeToken(data: data)
    }

    /// The remote's token inside `token`; `changeTokenExpired` if it was not read under `key`
    /// (a plain token, or one read under another key).
    static func unwrap(_ token: ChangeToken, key: AccountKeyID) throws(CloudError) -> ChangeToken {
        guard isSealed(token) else { throw .changeTokenExpired }
        let data = token.data
        let keyStart = data.startIndex + prefix.count
        let tokenStart = keyStart + AccountKeyID.byteCount
        guard data.count >= prefix.count + AccountKeyID.byteCount, Array(data[keyStart..<tokenStart]) == key.bytes else {
            throw .changeTokenExpired
        }
        return ChangeToken(data: Data(data[tokenStart...]))
    }

    /// Whether `token` was handed out by a sealed remote.
    static func isSealed(_ token: ChangeToken) -> Bool {
        token.data.starts(with: prefix)
    }
}
