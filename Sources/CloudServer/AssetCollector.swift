import IdeaBoxFoundation
import Logging
import ServerStore
import ServiceLifecycle

/// Every `interval`, deletes the assets no record names that were uploaded more than
/// `grace` ago (the grace spares an asset uploaded for a save still to come: an upload URL
/// lasts 15 minutes), and forgets the deletions made more than `tombstoneRetention` ago, so
/// that what records stop naming, and records deleted long since, stop counting against the
/// quota. A device that synced within the retention still finds every deletion it has not
/// seen; one whose token is older than a forgotten deletion is told `changeTokenExpired` and
/// fetches the zone anew.
struct AssetCollector: Service {
    let store: any AssetStore & RecordZoneStore
    let clock: WallClock
    let logger: Logger
    var interval: Duration = .seconds(600)
    var grace: Duration = .seconds(3600)
    var tombstoneRetention: Duration = CloudServer.defaultTombstoneRetention

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            await collect()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One round: the unnamed assets past the grace, then the deletions past the retention,
    /// each measured back from the clock's now. Every process over a shared store may
    /// collect: a delete of what another already deleted deletes nothing.
    func collect() async {
        let now = clock.now()
        do {
            _ = try await store.collectAssets(uploadedBefore: now.adding(milliseconds: -Self.milliseconds(grace)))
        } catch {
            logger.warning("serve: collecting unused assets failed: \(error)")
        }
        do {
            _ = try await store.purgeDeletions(before: now.adding(milliseconds: -Self.milliseconds(tombstoneRetention)))
        } catch {
            logger.warning("serve: forgetting old deletions failed: \(error)")
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        Int64(duration / .milliseconds(1))
    }
}
