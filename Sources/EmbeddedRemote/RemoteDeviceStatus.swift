import CloudKitModel

/// How the simulated remote treats one device: its account and the faults set for it, for
/// `ideabox remote status` and `ideabox account status`.
public struct RemoteDeviceStatus: Hashable, Codable, Sendable {
    /// The device's name (the profile).
    public var device: String
    /// The account the device is signed in to, or nil if signed out.
    public var account: String?
    /// Whether the device's network is off.
    public var isOffline: Bool
    /// Latency added to each of the device's requests.
    public var latencyMilliseconds: Int
    /// The random faults of the device, in the order they are drawn.
    public var errorRates: [ErrorRate]
    /// The errors still waiting for the device's next requests, first first.
    public var scriptedErrors: [ScriptedError]
    /// The most records the device's account may hold, or nil for no limit.
    public var quota: Int?
    /// How many records the device's account holds, across its zones.
    public var recordCount: Int

    /// A device status.
    public init(
        device: String, account: String?, isOffline: Bool, latencyMilliseconds: Int,
        errorRates: [ErrorRate], scriptedErrors: [ScriptedError], quota: Int?, recordCount: Int
    ) {
        self.device = device
        self.account = account
        self.isOffline = isOffline
        self.latencyMilliseconds = latencyMilliseconds
        self.errorRates = errorRates
        self.scriptedErrors = scriptedErrors
        self.quota = quota
        self.recordCount = recordCount
    }
}
