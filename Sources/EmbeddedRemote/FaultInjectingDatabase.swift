import CloudKitModel
import Foundation

/// A client whose requests first pass one device's injected faults (airplane mode, latency,
/// scripted and random errors), then go to another client.
///
/// The faults are kept in a `SimulatedNetwork` file under the device's name, as the embedded
/// remote keeps them, so `ideabox remote offline|latency|fault` work the same way for a
/// profile signed in to `ideabox serve`: the server never hears of them.
public struct FaultInjectingDatabase: CloudDatabase {
    /// Where the requests go once they pass the faults.
    let base: any CloudDatabase
    /// The file holding the device's faults.
    let faults: SimulatedNetwork
    /// The device whose faults apply.
    let device: String

    /// Requests of `device` pass its faults in `faults`, then go to `base`.
    public init(base: any CloudDatabase, faults: SimulatedNetwork, device: String) {
        self.base = base
        self.faults = faults
        self.device = device
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    public func accountStatus() async throws -> AccountStatus {
        try await base.accountStatus()
    }

    public func createZone(_ zone: RecordZoneID) async throws {
        try await perform(.createZone) { try await base.createZone(zone) }
    }

    public func deleteZone(_ zone: RecordZoneID) async throws {
        try await perform(.deleteZone) { try await base.deleteZone(zone) }
    }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try await perform(.modify) { try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy) }
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await perform(.fetchChanges) { try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit) }
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await perform(.query) { try await base.records(in: zone, ofType: recordType) }
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference {
        try await perform(.uploadAsset) { try await base.uploadAsset(data) }
    }

    public func fetchAsset(_ reference: AssetReference) async throws -> Data {
        try await perform(.fetchAsset) { try await base.fetchAsset(reference) }
    }

    private func perform<Result>(_ operation: CloudOperation, _ work: () async throws -> Result) async throws -> Result {
        let admitted: Faults?
        do {
            admitted = try faults.admitFaults(device: device, operation: operation)
        } catch {
            throw CloudError.internalError
        }
        guard let admitted else { throw CloudError.networkUnavailable }
        return try await admitted.apply(sleeper: faults.sleeper, random: faults.random, work)
    }
}
