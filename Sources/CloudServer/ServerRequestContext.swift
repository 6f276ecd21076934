import CloudWebServices
import Hummingbird
import NIOCore
import Synchronization

/// What a request carries from one middleware to the next: the operation its path names,
/// the account its token names (or the ticket of a signed URL), and the most body bytes it
/// may send.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The operation, container, environment and database the path names (`DatabasePathMiddleware`).
    var path: WebServicesPath.Parsed?
    /// The account the credentials name (`AuthenticationMiddleware`).
    var account: String? {
        didSet { logged.account = account }
    }
    /// The hash of the access token the credentials hold (`AuthenticationMiddleware`): the
    /// asset and webcourier URLs the request is given serve only while it is valid.
    var tokenHash: String?
    /// The signed ticket of an asset or webcourier URL (`TicketMiddleware`).
    var ticket: AssetTicket?
    /// The most body bytes read (`BodyLimitMiddleware`); a larger body is refused.
    var maxUploadSize = 0
    /// What the request log learns from within: shared with the middleware outside, which
    /// sees its own copy of the context.
    let logged = LoggedRequest()
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// What the request log says of one request that only the middleware inside learns: the
/// account, once its token was checked.
final class LoggedRequest: Sendable {
    private let state = Mutex<String?>(nil)

    /// The account the request's token names; nil before the token was checked.
    var account: String? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
