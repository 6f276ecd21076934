import AccountEncryption
import CloudKitModel
import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaSync
import Synchronization

/// The sync of a process that stays (the full-screen app, `sync --watch`): the engine on
/// its Dispatch queue, and the listener that holds the long poll on a queue of its own and
/// tells the engine which zone changed. How changes arrive is written beside the profile's
/// database, for `ideabox status` in another shell.
///
/// Each heals the other: the long poll answering again makes the engine sync at once, and a
/// sync that works after a failure makes the listener start its poll again at once; the
/// engine follows the profile's account file and key file, so a sign-in, a sign-out or an
/// unlock made elsewhere takes effect within two seconds.
struct LiveSync {
    /// The background sync loop.
    let engine: SyncEngine
    /// The long poll, if the remote can notify.
    let listener: ChangeListener?
    /// Where `live` or `polling` is kept for `status`.
    let deliveryFile: DeliveryFile

    /// The engine of `sync` with `companions`, and a listener for their zones if the remote
    /// can notify; `onStatus`, `onSynced` and `onDelivery` hear what they say.
    init(
        context: CommandContext, sync: (session: SyncSession, remote: RemoteConnection), profileDirectory: URL,
        companions: [any SyncCompanion], onStatus: @escaping @Sendable (SyncStatus) -> Void = { _ in },
        onSynced: @escaping @Sendable (SyncReport) -> Void = { _ in }, onDelivery: @escaping @Sendable (ChangeDelivery) -> Void = { _ in }
    ) {
        let healed = HealTarget()
        let engine = SyncEngine(
            session: sync.session, companions: companions, scheduler: DispatchSyncScheduler(clock: context.clock),
            onStatus: onStatus, onSynced: onSynced, onHealed: { healed.listener?.retryNow() })
        // The account file (`sign-in`, `sign-out`) and the key file (`unlock`), by their versions.
        let keyFile = AccountKeyFile(directory: profileDirectory)
        engine.followAccount {
            var versions = Hasher()
            versions.combine(AccountFile.version(in: profileDirectory))
            versions.combine(keyFile.version())
            return Int64(versions.finalize())
        }
        let deliveryFile = DeliveryFile(directory: profileDirectory)
        self.engine = engine
        self.deliveryFile = deliveryFile
        listener = sync.remote.changeFeed.map { feed in
            ChangeListener(
                feed: feed, zones: ([sync.session.zone] + companions.map(\.zone)).reduce(into: []) { zones, zone in
                    if !zones.contains(zone) { zones.append(zone) }
                },
                scheduler: DispatchSyncScheduler(clock: context.clock, label: "ideabox.notifications"),
                onChange: { engine.changesArrived(in: $0) },
                onDelivery: { delivery in
                    engine.deliveryChanged(delivery)
                    deliveryFile.write(delivery)
                    onDelivery(delivery)
                },
                onAnswer: { engine.remoteAnswered() })
        }
        healed.listener = listener
    }

    /// Syncs now and starts listening.
    func start() {
        engine.start()
        listener?.start()
    }

    /// Stops both; `status` no longer reports this process.
    func stop() {
        listener?.stop()
        engine.stop()
        deliveryFile.remove()
    }
}

/// The listener a healed engine wakes: set once both exist (the engine is made first).
private final class HealTarget: Sendable {
    private let held = Mutex<ChangeListener?>(nil)

    var listener: ChangeListener? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}

/// `delivery` in a profile's folder: how the running app or `sync --watch` of the profile
/// learns of changes (`live` or `polling`) and its process id, so that `status` can say it
/// and ignore a process that is gone.
struct DeliveryFile: Sendable {
    /// The file.
    let url: URL

    /// The file of the profile in `directory`.
    init(directory: URL) {
        url = directory.appendingPathComponent("delivery")
    }

    /// Records `delivery` for this process.
    func write(_ delivery: ChangeDelivery) {
        try? Data("\(delivery.rawValue) \(getpid())\n".utf8).write(to: url, options: .atomic)
        OwnerOnly.narrow(path: url.path)
    }

    /// Forgets this process's record.
    func remove() {
        if read()?.process == getpid() { try? FileManager.default.removeItem(at: url) }
    }

    /// How the profile's running process learns of changes, or nil if none runs.
    func current() -> ChangeDelivery? {
        guard let (delivery, process) = read(), kill(process, 0) == 0 || errno == EPERM else { return nil }
        return delivery
    }

    private func read() -> (delivery: ChangeDelivery, process: pid_t)? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let delivery = ChangeDelivery(rawValue: String(fields[0])), let process = pid_t(fields[1]) else {
            return nil
        }
        return (delivery, process)
    }
}
