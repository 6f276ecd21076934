import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation

/// Signing in: the page a person signs in on (Apple's), who signed in, and the one request a
/// sign-in is kept after.
extension WebServicesDatabase {
    /// Where a person signs in to get a user's token: Apple's sign-in page, the `redirectURL`
    /// of the `AUTHENTICATION_REQUIRED` (421) a request with the container's API token and no
    /// user's token gets (`docs/icloud-digest.md` §3). Throws `notAuthenticated` without an
    /// API token, what the answer means when it is another error (a refused API token:
    /// `tokenRefused`), and `networkFailure` when it names no page.
    public func signInPage() async throws -> URL {
        guard let apiToken = endpoint.apiToken else { throw CloudError.notAuthenticated }
        var components = URLComponents(url: endpoint.url(.zonesList), resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = Self.query([("ckAPIToken", apiToken)])
        let (status, headers, answer) = try await transport.post(
            components.url!, body: JSONValue.object([:]).bytes, contentType: "application/json", credentials: nil)
        if status == 421, let object = try? object(answer), let page = WebServicesError(object)?.redirectURL,
           let url = URL(string: page), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            return url
        }
        _ = try Self.signedSuccess(status: status, headers: headers, body: answer)
        throw CloudError.networkFailure
    }

    /// The user's record name (`users/current`, a GET in the public database as Apple has
    /// it): who signed in, which names the account a profile's ideas belong to.
    public func currentUserRecordName() async throws -> String {
        let (url, credentials, _) = try signedURL(.usersCurrent)
        let (status, headers, answer) = try await transport.get(url, wait: transport.timeout, credentials: credentials)
        token.adopt(from: headers)
        let object = try object(try Self.signedSuccess(status: status, headers: headers, body: answer))
        guard let name = object["userRecordName"]?.string, !name.isEmpty, name.utf8.count <= 255,
              !name.contains(where: { $0.isNewline })
        else { throw CloudError.networkFailure }
        return name
    }

    /// Makes one request with these credentials (a list of the account's zones), so that a
    /// sign-in is kept only once the server took it: throws `tokenRefused`, the server that
    /// could not be reached, or the certificate not trusted, as any request would.
    public func checkSignIn() async throws {
        _ = try await send(.zonesList, [:])
    }
}
