@testable import AccountEncryption
import CloudKitModel
@testable import CloudServer
import Crypto
import Foundation
import IdeaBoxFoundation

/// Tokens a client hands back and URLs the server gave out, read from hostile text: none may
/// crash, a ticket not signed with the server's secret must never read, and whatever reads
/// must read the same once spelled again. The first byte picks what the rest is read as.
enum TokenFuzz {
    /// The server secret the tickets are checked against (made on each use: a key is not `Sendable`).
    static var secret: SymmetricKey { SymmetricKey(data: Data(repeating: 0x5A, count: 32)) }
    /// The key id sealed change tokens are wrapped for.
    static let keyID = AccountKeyID(bytes: [1, 2, 3, 4, 5, 6, 7, 8])!

    /// Reads the rest of `bytes` as the kind of token its first byte picks.
    static func run(_ bytes: [UInt8]) {
        let (mode, rest) = splitMode(of: bytes, count: 6)
        let text = String(decoding: rest, as: UTF8.self)
        switch mode {
        case 0: databaseToken(text)
        case 1: unsignedTicket(text)
        case 2: signedTicket(rest)
        case 3: base64URL(text)
        case 4: sealedChangeToken(rest)
        default: storeChangeToken(rest)
        }
    }

    /// `changes/database`'s sync token: one read must spell a token that reads the same.
    private static func databaseToken(_ text: String) {
        guard let token = DatabaseToken(text: text) else { return }
        guard DatabaseToken(text: token.text) == token else { fuzzFailure("DatabaseToken \(text.debugDescription) does not survive its own spelling") }
    }

    /// Text the server never signed: reading it as a ticket is a forgery.
    private static func unsignedTicket(_ text: String) {
        if let ticket = AssetTicket(Substring(text), secret: secret, now: Timestamp(milliseconds: 0)) {
            fuzzFailure("a ticket nobody signed reads: \(ticket)")
        }
    }

    /// A payload signed here with the secret, so that the ticket's fields are read.
    private static func signedTicket(_ payload: [UInt8]) {
        let signature = Data(HMAC<SHA256>.authenticationCode(for: payload, using: secret))
        let text = Base64URL.encode(payload) + "." + Base64URL.encode(signature)
        guard let ticket = AssetTicket(Substring(text), secret: secret, now: Timestamp(milliseconds: 0)) else { return }
        let again = AssetTicket(Substring(ticket.encoded(secret: secret)), secret: secret, now: Timestamp(milliseconds: 0))
        // A ticket's text is at most 1024 bytes; one read at the limit may spell longer.
        guard again == ticket || ticket.encoded(secret: secret).utf8.count > 1024 else {
            fuzzFailure("ticket \(ticket) reads as \(String(describing: again)) once spelled again")
        }
    }

    /// The server's base64url: what decodes must encode and decode to the same bytes.
    private static func base64URL(_ text: String) {
        guard let data = Base64URL.decode(text) else { return }
        guard Base64URL.decode(Base64URL.encode(data)) == data else { fuzzFailure("Base64URL does not survive \(text.debugDescription)") }
    }

    /// A change token as the sealed view wraps it.
    private static func sealedChangeToken(_ bytes: [UInt8]) {
        let token = ChangeToken(data: Data(bytes))
        guard let inner = try? SealedChangeToken.unwrap(token, key: keyID) else { return }
        guard SealedChangeToken.wrap(inner, key: keyID) == token else { fuzzFailure("a sealed change token does not survive unwrapping") }
    }

    /// A change token as the SQLite store reads it, on the shared seeded store.
    private static func storeChangeToken(_ bytes: [UInt8]) {
        let token = ChangeToken(data: Data(bytes))
        let store = ServerFuzz.shared.store
        blocking {
            _ = try? await store.fetchChanges(account: ServerFuzz.account, in: ServerFuzz.zone, since: token, resultsLimit: 5)
            _ = try? await store.changeWriters(account: ServerFuzz.account, in: ServerFuzz.zone, since: token, limit: 5)
        }
    }
}
