import CloudWebServices
import Hummingbird
import NIOCore
import ServerStore

/// What the server answers beside CloudKit's paths, without credentials (ours):
/// `GET /healthz` for a load balancer, `GET /metrics` for Prometheus, and `GET /signin`,
/// the page `redirectURL` names, which tells a person how to get a token.
struct OperatorRoutes {
    /// Where a load balancer or an operator asks whether this process serves.
    static let healthPath = "/healthz"
    /// Where Prometheus reads the server's metrics.
    static let metricsPath = "/metrics"
    /// The page `redirectURL` names.
    static let signInPath = "/signin"

    let store: any AccountStore
    let metrics: ServerMetrics
    let hub: ZoneChangeHub

    /// Adds the three routes to `router`; each takes GET only, and another method is a 405
    /// that says so in `Allow`.
    func add(to router: Router<ServerRequestContext>) {
        router.onEveryMethod(RouterPath(Self.healthPath)) { request, _ in
            try Self.requireGet(request)
            return await health()
        }
        router.onEveryMethod(RouterPath(Self.metricsPath)) { request, _ in
            try Self.requireGet(request)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.text(heldPolls: hub.waiting))))
        }
        router.onEveryMethod(RouterPath(Self.signInPath)) { request, _ in
            try Self.requireGet(request)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: Self.signInPage)))
        }
    }

    /// Throws the 405 of a GET-only page for any other method.
    private static func requireGet(_ request: Request) throws {
        guard request.method == .get else { throw WebServicesError.methodNotAllowed(["GET"]) }
    }

    /// 200 `{"status":"ok","store":"ok"}` when the process runs and its store answers; 503
    /// with the store's state when it does not, so a load balancer sends requests to the
    /// other processes meanwhile.
    private func health() async -> Response {
        do {
            _ = try await store.serverSecret()
            return .json(["status": "ok", "store": "ok"])
        } catch {
            return .json(status: .serviceUnavailable, ["status": "unavailable", "store": "not answering"])
        }
    }

    static let signInPage = """
        IdeaBox server: signing in

        Each account has its own token. Ask the person who runs this server for one
        (they make it with `ideabox serve account add NAME`), then sign in on your device:

            ideabox account sign-in NAME --server URL

        and paste the token when asked. Other CloudKit Web Services clients send the token
        as ckWebAuthToken, with the container's API token (`ideabox serve api-token add`)
        as ckAPIToken, both in the query string.

        """
}
