import Crypto
import Foundation
import IdeaBoxFoundation
import ServerStore

/// What a URL of the server's own allows, signed so that the URL alone authorises it, as
/// Apple's asset and webcourier URLs do: a POST of one asset's bytes into one account
/// (`upload`), a GET of one asset of one account (`download`), or long polls for one
/// account's notifications (`webcourier`), until it expires.
///
/// Written `<payload>.<signature>` in base64url, where the signature is an HMAC-SHA256 of
/// the payload with the store's `serverSecret`, so every server process over one store
/// reads the tickets of the others, and no client can make or alter one.
///
/// A ticket names the access token that asked for it (by its hash) and serves only while
/// that token is valid (`TicketMiddleware`): revoking it, revoking or deleting the account
/// ends the URL at once, and a URL of a deleted account never reaches a new account of the
/// same name. A ticket of the release before, which names none, is read as it was then.
///
/// A webcourier ticket may also name the device that asked for it (ours: the
/// `X-IdeaBox-Device` header of its `tokens/create`): that device's own saves, which name it
/// the same way, do not wake its polls (`ZoneChangeHub.deliver`).
struct AssetTicket: Equatable {
    enum Kind: String {
        case upload = "u"
        case download = "d"
        case webcourier = "w"
    }

    /// How long an upload URL is good for (Apple's 15 minutes).
    static let uploadLifetime: Int64 = 15 * 60_000
    /// How long a download URL is good for.
    static let downloadLifetime: Int64 = 60 * 60_000
    /// How long a webcourier URL is good for; a device asks `tokens/create` again after.
    static let webcourierLifetime: Int64 = 7 * 24 * 60 * 60_000

    var kind: Kind
    /// The database the asset belongs to (`CloudOperations.owner`).
    var owner: String
    /// The asset's checksum (for a download), or the container (for a webcourier).
    var subject: String
    var expires: Timestamp
    /// The hash of the access token the ticket was made for; nil in an earlier release's.
    var tokenHash: String?
    /// The device whose polls the ticket serves (`DeviceHeader`), if it named one.
    var device: String?

    /// The ticket as it appears in a URL.
    func encoded(secret: SymmetricKey) -> String {
        var fields = [kind.rawValue, owner, subject, String(expires.milliseconds)]
        if tokenHash != nil || device != nil { fields.append(tokenHash ?? "") }
        if let device { fields.append(device) }
        let payload = Data(fields.joined(separator: "\n").utf8)
        let signature = Data(HMAC<SHA256>.authenticationCode(for: payload, using: secret))
        return Base64URL.encode(payload) + "." + Base64URL.encode(signature)
    }

    /// The ticket `text` stands for, or nil if it is malformed, was not signed with
    /// `secret`, or has expired by `now`.
    init?(_ text: Substring, secret: SymmetricKey, now: Timestamp) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 1024, parts.count == 2, let payload = Base64URL.decode(parts[0]),
              let signature = Base64URL.decode(parts[1]),
              HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: payload, using: secret)
        else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard fields.count == 4 || (fields.count == 5 && !fields[4].isEmpty) || (fields.count == 6 && !fields[5].isEmpty),
              let kind = Kind(rawValue: String(fields[0])), let expires = Int64(fields[3]), now.milliseconds < expires
        else { return nil }
        self.init(
            kind: kind, owner: String(fields[1]), subject: String(fields[2]), expires: Timestamp(milliseconds: expires),
            tokenHash: fields.count >= 5 && !fields[4].isEmpty ? String(fields[4]) : nil, device: fields.count == 6 ? String(fields[5]) : nil)
    }

    init(kind: Kind, owner: String, subject: String = "", expires: Timestamp, tokenHash: String? = nil, device: String? = nil) {
        self.kind = kind
        self.owner = owner
        self.subject = subject
        self.expires = expires
        self.tokenHash = tokenHash
        self.device = device
    }

    /// The account the ticket's database belongs to (its owner without `@container`).
    var account: String { DatabaseOwner.account(of: owner) }
}
