import CloudKitModel
import Foundation
import Synchronization

/// A client that passes every request to the real one, notes the size of each modify and the
/// records the remote saved, counts the fetches and zone creations, and can claim a larger request limit than the server's (so the
/// server answers `limitExceeded`) or fail chosen items of a modify on its own (a partial
/// failure the server's faults can't script).
public final class WatchedDatabase: CloudDatabase {
    private struct State {
        var modifySizes: [Int] = []
        var saved: [RemoteRecord] = []
        var fetchCount = 0
        var createZoneCount = 0
        var failingItem: (@Sendable (RecordID) -> CloudError?)?
        var failingFetch: Int?
    }

    private let base: any CloudDatabase
    private let claimedLimit: Int?
    private let state = Mutex(State())

    /// Watches `base`; `claimedLimit`, if given, is the limit the session is told.
    public init(_ base: any CloudDatabase, claimedLimit: Int? = nil) {
        self.base = base
        self.claimedLimit = claimedLimit
    }

    /// How many items each modify that reached this client held, in order.
    public var modifySizes: [Int] { state.withLock { $0.modifySizes } }
    /// Every record the remote saved for this client, as it answered (with its time of receipt).
    public var saved: [RemoteRecord] { state.withLock { $0.saved } }
    /// How many change fetches went out.
    public var fetchCount: Int { state.withLock { $0.fetchCount } }
    /// How many zone creations went out.
    public var createZoneCount: Int { state.withLock { $0.createZoneCount } }

    /// From now on, fails each saved record for which `failure` gives an error, without
    /// sending it; the rest of the request goes out. Nil stops failing items.
    public func failItems(_ failure: (@Sendable (RecordID) -> CloudError?)?) {
        state.withLock { $0.failingItem = failure }
    }

    /// Fails the `number`th change fetch from now (1: the next) with a network failure, once.
    public func failFetch(number: Int) {
        state.withLock { $0.failingFetch = $0.fetchCount + number }
    }

    public var maximumRecordsPerRequest: Int { claimedLimit ?? base.maximumRecordsPerRequest }

    public func accountStatus() async throws -> AccountStatus { try await base.accountStatus() }
    public func createZone(_ zone: RecordZoneID) async throws {
        state.withLock { $0.createZoneCount += 1 }
        try await base.createZone(zone)
    }
    public func deleteZone(_ zone: RecordZoneID) async throws { try await base.deleteZone(zone) }
    public func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    public func fetchAsset(_ reference: AssetReference) async throws -> Data { try await base.fetchAsset(reference) }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        let failure = state.withLock { state in
            state.modifySizes.append(records.count + recordIDs.count)
            return state.failingItem
        }
        var result: ModifyResult
        if let failure {
            var failures: [RecordID: CloudError] = [:]
            var sent: [RemoteRecord] = []
            for record in records {
                if let error = failure(record.recordID) { failures[record.recordID] = error } else { sent.append(record) }
            }
            result = try await base.modify(saving: sent, deleting: recordIDs, savePolicy: savePolicy)
            result.failures.merge(failures) { server, _ in server }
        } else {
            result = try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
        }
        let saved = result.saved
        state.withLock { $0.saved += saved }
        return result
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        let fails = state.withLock { state in
            state.fetchCount += 1
            return state.fetchCount == state.failingFetch
        }
        if fails { throw CloudError.networkFailure }
        return try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await base.records(in: zone, ofType: recordType)
    }
}
