import CloudKitModel
import Foundation

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

    func accountStatus() throws -> AccountStatus {
        let account = try serverErrorsAsCloudErrors { try cloud.network.signedInAccount(device: device) }
        return account.map { .available(accountName: $0) } ?? .noAccount
    }

    func createZone(_ zone: RecordZoneID) throws {
        try perform(.createZone) { account in try cloud.store.createZone(zone, account: account) }
    }

    func deleteZone(_ zone: RecordZoneID) throws {
        try perform(.deleteZone) { account in
            try cloud.store.deleteZone(zone, account: account)
            cloud.changes?.announce(account: account, zones: [zone], device: device)
        }
    }

    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult {
        try perform(.modify) { account in
            let result = try cloud.store.modify(account: account, saving: records, deleting: recordIDs, savePolicy: savePolicy)
            let zones = Set(result.saved.map(\.recordID.zoneID) + result.deleted.map(\.zoneID))
            cloud.changes?.announce(account: account, zones: zones, device: device)
            return result
        }
    }

    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        try perform(.fetchChanges) { account in
            try cloud.store.fetchChanges(account: account, in: zone, since: token, resultsLimit: resultsLimit)
        }
    }

    func records(in zone: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord] {
        try perform(.query) { account in try cloud.store.records(account: account, in: zone, ofType: recordType) }
    }

    func uploadAsset(_ data: Data) throws -> AssetReference {
        try perform(.uploadAsset) { account in try cloud.store.storeAsset(data, account: account) }
    }

    func fetchAsset(_ reference: AssetReference) throws -> Data {
        try perform(.fetchAsset) { account in
            guard let data = try cloud.store.asset(reference.checksum, account: account) else { throw CloudError.unknownItem }
            return data
        }
    }

    private func perform<Result>(_ operation: CloudOperation, _ work: (_ account: String) throws -> Result) throws -> Result {
        try serverErrorsAsCloudErrors {
            switch try cloud.network.admit(device: device, operation: operation) {
            case let .refused(error):
                throw error
            case let .admitted(account, faults):
                return try faults.apply(sleeper: cloud.network.sleeper, random: cloud.network.random) { try work(account) }
            }
        }
    }

    /// Runs `body`, turning a failure of the server's own storage into `internalError`, so
    /// that clients only ever see `CloudError`.
    private func serverErrorsAsCloudErrors<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError.internalError
        }
    }
}
