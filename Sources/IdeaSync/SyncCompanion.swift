import CloudKitModel

/// Another sync job the engine runs on the ideas' schedule, right after them (the library
/// folder): it shares their triggers, their retries and their signed-out handling.
public protocol SyncCompanion: Sendable {
    /// What the status bar and the keys call it, such as `library`.
    var name: String { get }
    /// The remote zone it syncs: a notification for it runs this companion alone.
    var zone: RecordZoneID { get }
    /// Syncs once; a `CloudError` it throws is retried the way the ideas' errors are.
    func sync() async throws
    /// How many local changes wait to be sent, counted without the remote; nil if unknown.
    func pendingCount() -> Int?
    /// Makes the remote hold exactly this device's data; the other devices follow.
    func overwriteRemote() async throws
}

/// A companion with local changes waiting: "library: 3 pending".
public struct CompanionPending: Sendable, Equatable {
    /// The companion's name.
    public var name: String
    /// How many changes wait.
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}
