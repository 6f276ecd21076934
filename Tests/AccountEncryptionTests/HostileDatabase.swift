import CloudKitModel
import Foundation

/// A remote that tampers with what it answers: `alter` rewrites each page of changes and each
/// listing before the device sees it (flips, swaps, moves). Everything else passes through.
struct HostileDatabase: CloudDatabase {
    let base: any CloudDatabase
    let alter: @Sendable ([RemoteRecord]) -> [RemoteRecord]

    var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }
    func accountStatus() throws -> AccountStatus { try base.accountStatus() }
    func createZone(_ zone: RecordZoneID) throws { try base.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) throws { try base.deleteZone(zone) }
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult {
        try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        var changes = try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
        changes.changed = alter(changes.changed)
        return changes
    }
    func records(in zone: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord] {
        alter(try base.records(in: zone, ofType: recordType))
    }
    func uploadAsset(_ data: Data) throws -> AssetReference { try base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) throws -> Data {
        var data = try base.fetchAsset(reference)
        data[data.startIndex + data.count / 2] ^= 1
        return data
    }
}
