@testable import CloudServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServerStore

/// A server's Hummingbird application run in this process through HummingbirdTesting's
/// router framework (`app.test(.router)`): requests go straight to its router, no socket,
/// each on a connection of its own that the server knows (`InProcessConnections`).
/// Its long-poll hub runs as the application's service, as in `serve`, and is stopped (its
/// held polls answered) by `stop()` or when this is released.
final class InProcessServer: Sendable {
    /// What sends requests to the router.
    let client: any TestClientProtocol
    /// Where its long polls wait.
    private let hub: ZoneChangeHub
    private let stopping: AsyncStream<Void>.Continuation
    private let uploads: UploadSpool

    /// Runs `server`'s application until `stop()`; its hub looks at its held polls' tokens
    /// once a second unless `checksHeldTokens` is false (a test that counts the store's
    /// callers at its gate).
    init(_ server: CloudServer, checksHeldTokens: Bool = true) async throws {
        let hub = ZoneChangeHub(
            store: server.store, logger: Logger(label: "ideabox.serve.test"), limits: server.fairShares,
            accounts: checksHeldTokens ? server.store : nil)
        let uploads = try UploadSpool(maximumUploads: server.maximumUploads, parent: server.uploadFolder)
        let connections = server.connections(hub: hub)
        let routes = server.router(hub: hub, metrics: ServerMetrics(), uploads: uploads, connections: connections)
        let app = Application(responder: InProcessConnections(responder: routes.buildResponder(), registry: connections), services: [hub])
        let (clients, handOver) = AsyncStream.makeStream(of: (any TestClientProtocol).self)
        let (stopped, stopping) = AsyncStream.makeStream(of: Void.self)
        Task {
            try await app.test(.router) { client in
                handOver.yield(client)
                handOver.finish()
                for await _ in stopped {}
            }
        }
        guard let client = await clients.first(where: { _ in true }) else { throw CancellationError() }
        self.client = client
        self.hub = hub
        self.stopping = stopping
        self.uploads = uploads
    }

    deinit {
        stop()
        uploads.remove()
    }

    /// How many long polls it holds now.
    var pollsHeld: Int { hub.waiting }
    /// How many of them have been set up (their token read and found good) and wait.
    var pollsAdmitted: Int { hub.admittedWaiting }

    /// Stops the application as a SIGTERM stops `serve`: its held polls are answered at once.
    func stop() {
        stopping.finish()
    }
}
