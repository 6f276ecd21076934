import IdeaSync

/// What the app can ask of sync: the running engine, and the simulated network switch
/// (airplane mode) of this device.
public struct SyncHooks: Sendable {
    /// The background sync loop.
    public var engine: SyncEngine
    /// Whether this device's network is on.
    public var isNetworkOn: @Sendable () throws -> Bool
    /// Turns this device's network on or off.
    public var setNetworkOn: @Sendable (Bool) throws -> Void
    /// Whether the account's ideas travel sealed and this device holds the key, as the last
    /// sync found (read without the network, once per sync).
    public var isEncrypted: @Sendable () -> Bool = { false }

    /// Hooks over `engine` and a network switch.
    public init(
        engine: SyncEngine, isNetworkOn: @escaping @Sendable () throws -> Bool,
        setNetworkOn: @escaping @Sendable (Bool) throws -> Void
    ) {
        self.engine = engine
        self.isNetworkOn = isNetworkOn
        self.setNetworkOn = setNetworkOn
    }
}
