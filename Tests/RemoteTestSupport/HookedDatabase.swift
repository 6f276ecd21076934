import CloudKitModel
import Foundation

/// A remote that passes every call to `base`, running `before` ahead of each and `after` once
/// `base` has answered it: the one double a suite wraps a remote in to act at a chosen moment
/// (lock the account at its first look, sign in to another account in the middle of a fetch,
/// turn encryption on between a look and a send). Either hook may throw, as the remote would.
public struct HookedDatabase: CloudDatabase {
    /// A call to the remote, as the hooks see it.
    public enum Call: Equatable, Sendable {
        case accountStatus
        case createZone(RecordZoneID)
        case deleteZone(RecordZoneID)
        /// A modify, with the zones of what it saves and deletes.
        case modify(zones: Set<RecordZoneID>)
        case fetchChanges(RecordZoneID)
        case query(RecordZoneID)
        case uploadAsset
        case fetchAsset
    }

    private let base: any CloudDatabase
    private let before: @Sendable (Call) throws -> Void
    private let after: @Sendable (Call) throws -> Void

    public init(
        _ base: any CloudDatabase, before: @escaping @Sendable (Call) throws -> Void = { _ in },
        after: @escaping @Sendable (Call) throws -> Void = { _ in }
    ) {
        self.base = base
        self.before = before
        self.after = after
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    public func accountStatus() async throws -> AccountStatus { try hooked(.accountStatus) { try base.accountStatus() } }

    public func createZone(_ zone: RecordZoneID) async throws { try hooked(.createZone(zone)) { try base.createZone(zone) } }

    public func deleteZone(_ zone: RecordZoneID) async throws { try hooked(.deleteZone(zone)) { try base.deleteZone(zone) } }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try hooked(.modify(zones: Set(records.map(\.recordID.zoneID) + recordIDs.map(\.zoneID)))) {
            try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
        }
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try hooked(.fetchChanges(zone)) { try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit) }
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try hooked(.query(zone)) { try base.records(in: zone, ofType: recordType) }
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference { try hooked(.uploadAsset) { try base.uploadAsset(data) } }

    public func fetchAsset(_ reference: AssetReference) async throws -> Data { try hooked(.fetchAsset) { try base.fetchAsset(reference) } }

    private func hooked<Answer>(_ call: Call, _ body: () throws -> Answer) throws -> Answer {
        try before(call)
        let answer = try body()
        try after(call)
        return answer
    }
}
