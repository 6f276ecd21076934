import Foundation
import NIOHTTP1
import Synchronization

/// The user's token a client sends (`ckWebAuthToken`, or ours as a bearer), shared by every
/// copy of the client. Apple hands out a new web auth token with its answers, in the
/// `X-Apple-CloudKit-Web-Auth-Token` header (`docs/icloud-digest.md` §3: observed; Apple's
/// pages say only that a new one comes "in the response" and the old one is good for one round
/// trip): the next request sends the new one, and `onNew` keeps it (a profile's server files)
/// before the answer that brought it is handed on. `serve` sends none, and its tokens stay.
public final class WebAuthToken: Sendable {
    /// The header a new token comes in.
    static let header = "X-Apple-CloudKit-Web-Auth-Token"
    /// The longest token taken from an answer (a longer one is not a token but an attack).
    public static let maximumLength = 512

    private let value: Mutex<String?>
    private let onNew: @Sendable (_ previous: String, _ new: String) -> Void
    private let saved: @Sendable () -> String?

    /// `saved` reads the token kept where `onNew` keeps them: another process of the same
    /// profile may have spent this one's and kept the next (`fresher(than:)`).
    init(
        _ token: String?, onNew: @escaping @Sendable (_ previous: String, _ new: String) -> Void,
        saved: @escaping @Sendable () -> String? = { nil }
    ) {
        value = Mutex(token)
        self.onNew = onNew
        self.saved = saved
    }

    /// After `used` was refused: the token kept since, if it is another, which the next request
    /// sends (unless this client took a new one meanwhile, which it keeps); nil when there is
    /// none to try, and the refusal stands.
    func fresher(than used: String) -> String? {
        guard let kept = saved(), kept != used else { return nil }
        return value.withLock { token -> String? in
            if token == used { token = kept }
            return token == used ? nil : token
        }
    }

    /// The token the next request sends; nil when signed out.
    var current: String? { value.withLock { $0 } }

    /// Whether `text` can be a token: one line of printable ASCII without spaces, at most
    /// `maximumLength` bytes.
    public static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Takes the new token an answer's `headers` hand out, if any (`isToken`), and only while
    /// signed in.
    func adopt(from headers: HTTPHeaders) {
        guard let new = headers.first(name: Self.header), Self.isToken(new) else { return }
        let replaced = value.withLock { token -> String? in
            guard let old = token, old != new else { return nil }
            token = new
            return old
        }
        if let replaced { onNew(replaced, new) }
    }
}
