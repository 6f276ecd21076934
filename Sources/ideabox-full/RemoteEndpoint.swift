import CloudHTTPClient
import Foundation

/// The remote a profile's requests reach, as `status` and `remote status` tell it: the
/// embedded one every profile under the data root shares, or a server with the container
/// and environment its paths name.
struct RemoteEndpoint: Hashable, Encodable {
    enum Kind: String, Encodable {
        case embedded, server
    }

    var kind: Kind
    /// The server's base URL; nil for the embedded remote.
    var server: URL?
    /// The container the requests name; nil for the embedded remote, which has none.
    var container: String?
    /// `production` or `development`; nil for the embedded remote.
    var environment: String?

    /// The embedded remote.
    static let embedded = RemoteEndpoint(kind: .embedded, server: nil, container: nil, environment: nil)

    /// The server `credentials` reach, with the container a file that names none reaches.
    init(served credentials: ServerCredentials) {
        let database = credentials.database(unnamedContainer: ProductContainer.legacy)
        self.init(
            kind: .server, server: credentials.server, container: database.endpoint.container,
            environment: database.endpoint.environment)
    }

    private init(kind: Kind, server: URL?, container: String?, environment: String?) {
        self.kind = kind
        self.server = server
        self.container = container
        self.environment = environment
    }
}
