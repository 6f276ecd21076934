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
    private let before: @Sendable (Call) async throws -> Void
    private let after: @Sendable (Call) async throws -> Void

    public init(
        _ base: any CloudDatabase, before: @escaping @Sendable (Call) async throws -> Void = { _ in },
        after: @escaping @Sendable (Call) async throws -> Void = { _ in }
    ) {
        self.base = base
        self.before = before
        self.after = after
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    public func accountStatus() async throws -> AccountStatus { try await hooked(.accountStatus) { try await base.accountStatus() } }

    public func createZone(_ zone: RecordZoneID) async throws { try await hooked(.createZone(zone)) { try await base.createZone(zone) } }

    public func deleteZone(_ zone: RecordZoneID) async throws { try await hooked(.deleteZone(zone)) { try await base.deleteZone(zone) } }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try await hooked(.modify(zones: Set(records.map(\.recordID.zoneID) + recordIDs.map(\.zoneID)))) {
            try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
        }
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await hooked(.fetchChanges(zone)) { try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit) }
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await hooked(.query(zone)) { try await base.records(in: zone, ofType: recordType) }
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference { try await hooked(.uploadAsset) { try await base.uploadAsset(data) } }

    public func fetchAsset(_ reference: AssetReference) async throws -> Data { try await hooked(.fetchAsset) { try await base.fetchAsset(reference) } }

    private func hooked<Answer>(_ call: Call, _ body: () async throws -> Answer) async throws -> Answer {
        try await before(call)
        let answer = try await body()
        try await after(call)
        return answer
    }
}
