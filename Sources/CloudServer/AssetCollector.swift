import IdeaBoxFoundation
import Logging
import ServerStore
import ServiceLifecycle

/// Deletes, every `interval`, the assets no record names that were uploaded more than
/// `grace` ago (the grace spares an asset uploaded for a save still to come: an upload URL
/// lasts 15 minutes), so that what records stop naming stops counting against the quota.
struct AssetCollector: Service {
    let store: any AssetStore
    let clock: WallClock
    let logger: Logger
    var interval: Duration = .seconds(600)
    var grace: Duration = .seconds(3600)

    func run() async throws {
        // Every process over a shared store may collect: a delete of what another already
        // deleted deletes nothing.
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                _ = try await store.collectAssets(uploadedBefore: clock.now().adding(milliseconds: -Int64(grace / .milliseconds(1))))
            } catch {
                logger.warning("serve: collecting unused assets failed: \(error)")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
