import CloudKitModel
import Foundation
import Synchronization

/// A remote that tampers with the pages of changes it serves, once told how (`tamper`):
/// flips, swaps, moves or replays records before the device sees them. Everything else
/// passes through to the honest remote below.
final class HostileRemote: CloudDatabase {
    let base: any CloudDatabase
    private let alteration = Mutex<(@Sendable ([RemoteRecord]) -> [RemoteRecord])?>(nil)

    init(base: any CloudDatabase) {
        self.base = base
    }

    /// From now on, every page of changes (and every listing) goes through `alter`.
    func tamper(_ alter: @escaping @Sendable ([RemoteRecord]) -> [RemoteRecord]) {
        alteration.withLock { $0 = alter }
    }

    /// Honest again.
    func behave() {
        alteration.withLock { $0 = nil }
    }

    private func altered(_ records: [RemoteRecord]) -> [RemoteRecord] {
        alteration.withLock { $0 }.map { $0(records) } ?? records
    }

    var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }
    func accountStatus() throws -> AccountStatus { try base.accountStatus() }
    func createZone(_ zone: RecordZoneID) throws { try base.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) throws { try base.deleteZone(zone) }
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult {
        try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        var changes = try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
        changes.changed = altered(changes.changed)
        return changes
    }
    func records(in zone: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord] {
        altered(try base.records(in: zone, ofType: recordType))
    }
    func uploadAsset(_ data: Data) throws -> AssetReference { try base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) throws -> Data { try base.fetchAsset(reference) }
}
