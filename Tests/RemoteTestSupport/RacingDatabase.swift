import CloudKitModel
import Foundation
import Synchronization

/// A remote on which another device saves (`race`) just before this device's first
/// conditional save (or before every one), as if it had saved between the read and the write.
public final class RacingDatabase: CloudDatabase, Sendable {
    public let base: any CloudDatabase
    public let maximumRecordsPerRequest: Int
    private let every: Bool
    private let race: @Sendable (any CloudDatabase) async throws -> Void
    private let count = Mutex(0)
    private let saves = Mutex(0)

    public init(
        base: any CloudDatabase, maximumRecordsPerRequest: Int = 400, every: Bool = false,
        race: @escaping @Sendable (any CloudDatabase) async throws -> Void
    ) {
        self.base = base
        self.maximumRecordsPerRequest = maximumRecordsPerRequest
        self.every = every
        self.race = race
    }

    /// How many times the other device saved.
    public var races: Int { count.withLock { $0 } }
    /// How many requests saved records.
    public var saveRequests: Int { saves.withLock { $0 } }

    public func accountStatus() async throws -> AccountStatus { try await base.accountStatus() }
    public func createZone(_ zone: RecordZoneID) async throws { try await base.createZone(zone) }
    public func deleteZone(_ zone: RecordZoneID) async throws { try await base.deleteZone(zone) }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        let runs = !records.isEmpty && savePolicy == .ifServerRecordUnchanged && count.withLock { count in
            guard every || count == 0 else { return false }
            count += 1
            return true
        }
        if !records.isEmpty { saves.withLock { $0 += 1 } }
        if runs { try await race(base) }
        return try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await base.records(in: zone, ofType: recordType)
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    public func fetchAsset(_ reference: AssetReference) async throws -> Data { try await base.fetchAsset(reference) }
}
