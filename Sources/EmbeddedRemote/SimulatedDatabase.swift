import CloudKitModel
import Foundation
import ServerStore

/// One device's client of a `SimulatedCloud`: each request first passes the device's
/// faults, then reaches the private database of the account the device is signed in to.
///
/// A request is refused on the device when it is signed out (`notAuthenticated`) or offline
/// (`networkUnavailable`); otherwise it waits the device's latency, then fails with the next
/// scripted error or a random one if any applies, and only then is carried out. Failing
/// requests change nothing on the server, except a scripted error that fails after applying
/// (a lost response).
struct SimulatedDatabase: CloudDatabase {
    /// The server.
    let cloud: SimulatedCloud
    /// The device this client belongs to.
    let device: String

    var maximumRecordsPerRequest: Int { cloud.maximumRecordsPerRequest }

    func accountStatus() async throws -> AccountStatus {
        let account = try await serverErrorsAsCloudErrors {
            try await withTaskExecutorPreference(BlockingTaskExecutor.shared) { try cloud.network.signedInAccount(device: device) }
        }
        return account.map { .available(accountName: $0) } ?? .noAccount
    }

    func createZone(_ zone: RecordZoneID) async throws {
        try await perform(.createZone) { account in try cloud.store.createZone(zone, account: account) }
    }

    func deleteZone(_ zone: RecordZoneID) async throws {
        try await perform(.deleteZone) { account in
            try cloud.store.deleteZone(zone, account: account)
            cloud.changes?.announce(account: account, zones: [zone], device: device)
        }
    }

    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try await perform(.modify) { account in
            let result = try cloud.store.modify(account: account, saving: records, deleting: recordIDs, savePolicy: savePolicy)
            let zones = Set(result.saved.map(\.recordID.zoneID) + result.deleted.map(\.zoneID))
            cloud.changes?.announce(account: account, zones: zones, device: device)
            return result
        }
    }

    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await perform(.fetchChanges) { account in
            try cloud.store.fetchChanges(account: account, in: zone, since: token, resultsLimit: resultsLimit)
        }
    }

    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await perform(.query) { account in try cloud.store.records(account: account, in: zone, ofType: recordType) }
    }

    func uploadAsset(_ data: Data) async throws -> AssetReference {
        try await perform(.uploadAsset) { account in try cloud.store.storeAsset(data, account: account) }
    }

    func fetchAsset(_ reference: AssetReference) async throws -> Data {
        try await perform(.fetchAsset) { account in
            guard let data = try cloud.store.asset(reference.checksum, account: account) else { throw CloudError.unknownItem }
            return data
        }
    }

    /// Passes the device's faults, then does `work`. The network's file and the store are
    /// SQLite, whose calls block their thread: they run on `BlockingTaskExecutor`, never on
    /// the cooperative pool (a latency is waited out without a thread).
    private func perform<Result: Sendable>(_ operation: CloudOperation, _ work: (_ account: String) throws -> Result) async throws -> Result {
        try await serverErrorsAsCloudErrors {
            try await withTaskExecutorPreference(BlockingTaskExecutor.shared) {
                switch try cloud.network.admit(device: device, operation: operation) {
                case let .refused(error):
                    throw error
                case let .admitted(account, faults):
                    return try await faults.apply(sleeper: cloud.network.sleeper, random: cloud.network.random) { try work(account) }
                }
            }
        }
    }

    /// Runs `body`, turning a failure of the server's own storage into `internalError`, so
    /// that clients only ever see `CloudError`.
    private func serverErrorsAsCloudErrors<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError.internalError
        }
    }
}
