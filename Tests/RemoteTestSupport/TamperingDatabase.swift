import CloudKitModel
import Foundation
import Synchronization

/// A remote that tampers with what it answers, once told how: `tamper` rewrites each page of
/// changes and each listing before the device sees it (flips, swaps, moves, replays), and
/// `tamperAssets` flips a bit in the middle of each asset fetched. Everything else passes
/// through to the honest remote below. The one such double of the sealing and sync suites.
public final class TamperingDatabase: CloudDatabase {
    private struct Tampering {
        var records: (@Sendable ([RemoteRecord]) -> [RemoteRecord])?
        var assets = false
    }

    public let base: any CloudDatabase
    private let tampering: Mutex<Tampering>

    /// Honest over `base` until told otherwise; `alter`, if given, tampers from the start.
    public init(base: any CloudDatabase, alter: (@Sendable ([RemoteRecord]) -> [RemoteRecord])? = nil) {
        self.base = base
        tampering = Mutex(Tampering(records: alter))
    }

    /// From now on, every page of changes (and every listing) goes through `alter`.
    public func tamper(_ alter: @escaping @Sendable ([RemoteRecord]) -> [RemoteRecord]) {
        tampering.withLock { $0.records = alter }
    }

    /// From now on, every asset fetched has one bit flipped.
    public func tamperAssets() {
        tampering.withLock { $0.assets = true }
    }

    /// Honest again.
    public func behave() {
        tampering.withLock { $0 = Tampering() }
    }

    private func altered(_ records: [RemoteRecord]) -> [RemoteRecord] {
        tampering.withLock { $0.records }.map { $0(records) } ?? records
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }
    public func accountStatus() throws -> AccountStatus { try base.accountStatus() }
    public func createZone(_ zone: RecordZoneID) throws { try base.createZone(zone) }
    public func deleteZone(_ zone: RecordZoneID) throws { try base.deleteZone(zone) }
    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult {
        try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }
    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        var changes = try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
        changes.changed = altered(changes.changed)
        return changes
    }
    public func records(in zone: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord] {
        altered(try base.records(in: zone, ofType: recordType))
    }
    public func uploadAsset(_ data: Data) throws -> AssetReference { try base.uploadAsset(data) }
    public func fetchAsset(_ reference: AssetReference) throws -> Data {
        var data = try base.fetchAsset(reference)
        if tampering.withLock({ $0.assets }), !data.isEmpty { data[data.startIndex + data.count / 2] ^= 1 }
        return data
    }
}
