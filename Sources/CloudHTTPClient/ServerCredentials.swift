import Foundation
import IdeaBoxFoundation

/// How a profile reaches `ideabox serve`, or the person's iCloud (`isICloud`): the server's
/// URL, the container and its environment, the account, its token (nil once signed out) and
/// the container's API token if the server gave one. Kept in the profile's folder, readable by
/// its owner only.
///
/// Signed in to iCloud, the account is the person's user record name (`users/current`), the
/// token is Apple's web auth token, which Apple's answers replace as they go: the client
/// saves each new one before the request after (`onNewToken`, `replaceToken`), so a process
/// that ends midway never leaves a used-up token behind. The new ones go to a file of their
/// own (`rotatedTokenFileName`), naming the sign-in's token they replace: server.json, whose
/// every new version is a new sign-in that a running app follows at once, changes only when
/// the person signs in or out.
///
/// A file written before containers and API tokens were named has neither: it goes on
/// naming the container the product used then (which `database(unnamedContainer:)` is
/// told, and servers still serve) with the account's token alone, so an upgrade needs no
/// new sign-in.
public struct ServerCredentials: Codable, Hashable, Sendable {
    /// The file's name in the profile's folder.
    public static let fileName = "server.json"
    /// The file of the latest token an answer handed out in place of the sign-in's.
    public static let rotatedTokenFileName = "server-token.json"

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

    /// The credentials stored in `directory`, or nil if the profile uses the embedded remote;
    /// their token the latest that replaced the sign-in's.
    public static func load(from directory: URL) throws -> ServerCredentials? {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        var credentials = try JSONDecoder().decode(ServerCredentials.self, from: Data(contentsOf: url))
        credentials.token = latestToken(replacing: credentials.token, in: directory)
        return credentials
    }

    /// The latest token kept in place of the sign-in's `signInToken` (itself if none is).
    private static func latestToken(replacing signInToken: String?, in directory: URL) -> String? {
        let url = directory.appendingPathComponent(rotatedTokenFileName)
        guard let data = try? Data(contentsOf: url), let rotated = try? JSONDecoder().decode(RotatedToken.self, from: data),
              rotated.replaces == signInToken
        else { return signInToken }
        return rotated.token
    }

    /// Writes the credentials to `directory` with mode 0600, replacing the file whole: a new
    /// sign-in (or a sign-out), which no earlier token replaces.
    public func save(to directory: URL) throws {
        try Self.write(self, named: Self.fileName, in: directory)
        let rotated = directory.appendingPathComponent(Self.rotatedTokenFileName)
        if FileManager.default.fileExists(atPath: rotated.path) { try FileManager.default.removeItem(at: rotated) }
    }

    /// What `rotatedTokenFileName` holds.
    private struct RotatedToken: Codable {
        /// The sign-in's token (server.json's) this one replaces.
        var replaces: String
        var token: String
    }

    /// Writes `value` as JSON to the file `name` in `directory`, mode 0600, replacing it whole.
    private static func write(_ value: some Encodable, named name: String, in directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        try OwnerOnly.createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(name).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: data)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, directory.appendingPathComponent(name).path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Removes the credentials from `directory`: the profile uses the embedded remote again.
    public static func remove(from directory: URL) throws {
        for name in [fileName, rotatedTokenFileName] {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        }
    }

    /// The client these credentials make; a file that names no container reaches
    /// `unnamedContainer`. A stored authority that is no longer a certificate trusts nothing
    /// more than the system's roots. Each request fails after `timeout` seconds without an answer.
    /// A new token an answer hands out goes to `onNewToken`, with the one it replaces, before
    /// the request after.
    /// `savedToken` reads the token kept since (another process's), tried once after a refusal.
    public func database(
        unnamedContainer: String, timeout: Double = 30,
        onNewToken: @escaping @Sendable (_ previous: String, _ new: String) -> Void = { _, _ in },
        savedToken: @escaping @Sendable () -> String? = { nil }
    ) -> WebServicesDatabase {
        WebServicesDatabase(
            endpoint: WebServicesDatabase.Endpoint(
                server: server, container: container ?? unnamedContainer, environment: environment ?? "production",
                apiToken: apiToken, allowsInsecureHTTP: allowsInsecureHTTP ?? false),
            accountName: account, token: token, timeout: timeout,
            pool: (try? HTTPConnectionPool.with(trustedAuthority: certificateAuthority)) ?? .shared, onNewToken: onNewToken,
            savedToken: savedToken)
    }

    /// Saves `token`, which an answer handed out in place of `previous`, if the credentials in
    /// `directory` are still the sign-in that token belongs to (a sign-in since then wins).
    /// server.json stays as it is.
    public static func replaceToken(_ previous: String, with token: String, in directory: URL) throws {
        let url = directory.appendingPathComponent(fileName)
        guard let data = try? Data(contentsOf: url), let signedIn = try? JSONDecoder().decode(ServerCredentials.self, from: data),
              let signInToken = signedIn.token, latestToken(replacing: signInToken, in: directory) == previous
        else { return }
        try write(RotatedToken(replaces: signInToken, token: token), named: rotatedTokenFileName, in: directory)
    }
}
