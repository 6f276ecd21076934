import CloudKitModel
import Foundation

/// Each account's zone subscriptions, and the change announcements that wake long polls
/// in every server process over one store.
public protocol SubscriptionStore: Sendable {
    /// The zone subscriptions of `account`, by id.
    func subscriptions(account: String) async throws -> [ZoneSubscription]
    /// Saves `subscription` for `account`, replacing one with its id.
    func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws
    /// Deletes the subscription `id` of `account`; returns whether there was one.
    func deleteSubscription(id: String, account: String) async throws -> Bool
    /// Tells the other server processes over this store that hold long polls of `account`
    /// (`keepListening`) that `zones` of it changed (PostgreSQL's `NOTIFY`); no process
    /// listening, nothing is sent, and a store that one process serves alone has no one to tell.
    func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws
    /// Records that the server process `process` holds long polls of `account` for `duration`
    /// more, so that the others announce that account's changes to it from now on; a store
    /// that one process serves alone has nothing to record.
    func keepListening(account: String, process: String, for duration: Duration) async throws
    /// Calls `handler` with every change another process announces, until the task is
    /// cancelled; returns at once for a store that one process serves alone.
    func listenForChanges(_ handler: @escaping @Sendable (_ process: String, _ account: String, _ zone: RecordZoneID) -> Void) async throws
    /// As `listenForChanges(_:)`, and calls `whenListening` each time it starts listening:
    /// after a lost connection, the announcements made before it listened again are lost,
    /// so whoever waits for them looks again.
    func listenForChanges(
        _ handler: @escaping @Sendable (_ process: String, _ account: String, _ zone: RecordZoneID) -> Void,
        whenListening: @escaping @Sendable () -> Void
    ) async throws
}

extension SubscriptionStore {
    /// Listens as `listenForChanges(_:)` does, for a store that never loses its listening
    /// (one process alone): `whenListening` is never called.
    public func listenForChanges(
        _ handler: @escaping @Sendable (_ process: String, _ account: String, _ zone: RecordZoneID) -> Void,
        whenListening: @escaping @Sendable () -> Void
    ) async throws {
        try await listenForChanges(handler)
    }
}
