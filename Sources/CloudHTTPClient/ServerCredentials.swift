import Foundation
import IdeaBoxFoundation

/// How a profile reaches `ideabox serve`, or the person's iCloud (`isICloud`): the server's
/// URL, the container and its environment, the account, its token (nil once signed out) and
/// the container's API token if the server gave one. Kept in the profile's folder, readable by
/// its owner only.
///
/// Signed in to iCloud, the account is the person's user record name (`users/current`), the
/// token is Apple's web auth token, which Apple's answers replace as they go: the client
/// saves each new one here before the request after (`onNewToken`), so a process that ends
/// midway never leaves a used-up token behind.
///
/// A file written before containers and API tokens were named has neither: it goes on
/// naming the container the product used then (which `database(unnamedContainer:)` is
/// told, and servers still serve) with the account's token alone, so an upgrade needs no
/// new sign-in.
public struct ServerCredentials: Codable, Hashable, Sendable {
    /// The file's name in the profile's folder.
    public static let fileName = "server.json"

    /// The server's base URL.
    public var server: URL
    /// The account signed in to.
    public var account: String
    /// The account's token, or nil when signed out.
    public var token: String?
    /// The container signed in to (nil in a file from before containers were named).
    public var container: String?
    /// The container's API token (`ckAPIToken`), if the server gave one.
    public var apiToken: String?
    /// A certificate authority (PEM) trusted for this server besides the system's roots:
    /// `--ca-cert`, copied in so that the file may move.
    public var certificateAuthority: String?
    /// Whether the user allowed plain HTTP to another machine (`--allow-insecure-http`).
    public var allowsInsecureHTTP: Bool?
    /// The container's environment, `production` or `development` (nil: `production`).
    public var environment: String?
    /// Whether this is the person's iCloud (Apple's CloudKit Web Services, where the IdeaBox
    /// app keeps its ideas in its own record shape) rather than `ideabox serve`.
    public var isICloud: Bool?

    enum CodingKeys: String, CodingKey {
        case server, account, token, container, apiToken, certificateAuthority, allowsInsecureHTTP, environment
        case isICloud = "icloud"
    }

    /// Credentials for `account` on `server`.
    public init(
        server: URL, account: String, token: String?, container: String?, apiToken: String? = nil,
        certificateAuthority: String? = nil, allowsInsecureHTTP: Bool = false
    ) {
        self.server = server
        self.account = account
        self.token = token
        self.container = container
        self.apiToken = apiToken
        self.certificateAuthority = certificateAuthority
        self.allowsInsecureHTTP = allowsInsecureHTTP ? true : nil
    }

    /// The credentials stored in `directory`, or nil if the profile uses the embedded remote.
    public static func load(from directory: URL) throws -> ServerCredentials? {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(ServerCredentials.self, from: Data(contentsOf: url))
    }

    /// Writes the credentials to `directory` with mode 0600, replacing the file whole.
    public func save(to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        try OwnerOnly.createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(Self.fileName).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: data)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, directory.appendingPathComponent(Self.fileName).path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Removes the credentials from `directory`: the profile uses the embedded remote again.
    public static func remove(from directory: URL) throws {
        let url = directory.appendingPathComponent(fileName)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    /// The client these credentials make; a file that names no container reaches
    /// `unnamedContainer`. A stored authority that is no longer a certificate trusts nothing
    /// more than the system's roots. Each request fails after `timeout` seconds without an answer.
    /// A new token an answer hands out goes to `onNewToken` before the request after.
    public func database(
        unnamedContainer: String, timeout: Double = 30, onNewToken: @escaping @Sendable (String) -> Void = { _ in }
    ) -> WebServicesDatabase {
        WebServicesDatabase(
            endpoint: WebServicesDatabase.Endpoint(
                server: server, container: container ?? unnamedContainer, environment: environment ?? "production",
                apiToken: apiToken, allowsInsecureHTTP: allowsInsecureHTTP ?? false),
            accountName: account, token: token, timeout: timeout,
            pool: (try? HTTPConnectionPool.with(trustedAuthority: certificateAuthority)) ?? .shared, onNewToken: onNewToken)
    }

    /// Saves `token` as the account's in the credentials kept in `directory`, if they are still
    /// this account's on this server (a sign-in elsewhere since then wins).
    public static func replaceToken(with token: String, in directory: URL, account: String, server: URL) throws {
        guard var current = try load(from: directory), current.account == account, current.server == server,
              current.token != nil
        else { return }
        current.token = token
        try current.save(to: directory)
    }
}
