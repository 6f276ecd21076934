import CloudKitModel

/// A device's feed that honours its simulated network: with airplane mode on
/// (`ideabox remote offline on`, `o` in the app), watching fails as the network would,
/// so the device reports `polling` until the network is back.
public struct OfflineAwareChangeFeed: ZoneChangeFeed {
    /// The feed behind the switch.
    let base: any ZoneChangeFeed
    /// The file holding the device's simulated network.
    let faults: SimulatedNetwork
    /// The device whose network it is.
    let device: String

    /// `base`, cut off while `device` is offline in `faults`.
    public init(base: any ZoneChangeFeed, faults: SimulatedNetwork, device: String) {
        self.base = base
        self.faults = faults
        self.device = device
    }

    public func startWatching(_ zones: [RecordZoneID]) async throws -> ChangeCursor {
        try checkNetwork()
        return try await base.startWatching(zones)
    }

    public func waitForChanges(after cursor: ChangeCursor, seconds: Int) async throws -> ZoneChangeNotice? {
        try checkNetwork()
        return try await base.waitForChanges(after: cursor, seconds: seconds)
    }

    private func checkNetwork() throws {
        let offline: Bool
        do {
            offline = try faults.isOffline(device: device)
        } catch {
            throw CloudError.internalError
        }
        if offline { throw CloudError.networkUnavailable }
    }
}
