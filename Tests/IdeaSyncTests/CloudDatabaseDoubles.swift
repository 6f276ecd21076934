import CloudKitModel
import Foundation
import Synchronization

/// A client that passes every request to the real one, notes the size of each modify and the
/// records the remote saved, and
/// counts the fetches and zone creations, and can claim a larger request limit than the server's (so the
/// server answers `limitExceeded`) or fail chosen items of a modify on its own (a partial
/// failure the server's faults can't script).
final class WatchedDatabase: CloudDatabase {
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
    init(_ base: any CloudDatabase, claimedLimit: Int? = nil) {
        self.base = base
        self.claimedLimit = claimedLimit
    }

    /// How many items each modify that reached this client held, in order.
    var modifySizes: [Int] { state.withLock { $0.modifySizes } }
    /// Every record the remote saved for this client, as it answered (with its time of receipt).
    var saved: [RemoteRecord] { state.withLock { $0.saved } }
    /// How many change fetches went out.
    var fetchCount: Int { state.withLock { $0.fetchCount } }
    /// How many zone creations went out.
    var createZoneCount: Int { state.withLock { $0.createZoneCount } }

    /// From now on, fails each saved record for which `failure` gives an error, without
    /// sending it; the rest of the request goes out. Nil stops failing items.
    func failItems(_ failure: (@Sendable (RecordID) -> CloudError?)?) {
        state.withLock { $0.failingItem = failure }
    }

    /// Fails the `number`th change fetch from now (1: the next) with a network failure, once.
    func failFetch(number: Int) {
        state.withLock { $0.failingFetch = $0.fetchCount + number }
    }

    var maximumRecordsPerRequest: Int { claimedLimit ?? base.maximumRecordsPerRequest }

    func accountStatus() async throws -> AccountStatus { try base.accountStatus() }
    func createZone(_ zone: RecordZoneID) async throws {
        state.withLock { $0.createZoneCount += 1 }
        try base.createZone(zone)
    }
    func deleteZone(_ zone: RecordZoneID) async throws { try base.deleteZone(zone) }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) async throws -> Data { try base.fetchAsset(reference) }

    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
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
            result = try base.modify(saving: sent, deleting: recordIDs, savePolicy: savePolicy)
            result.failures.merge(failures) { server, _ in server }
        } else {
            result = try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
        }
        let saved = result.saved
        state.withLock { $0.saved += saved }
        return result
    }

    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        let fails = state.withLock { state in
            state.fetchCount += 1
            return state.fetchCount == state.failingFetch
        }
        if fails { throw CloudError.networkFailure }
        return try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }

    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try base.records(in: zone, ofType: recordType)
    }
}

/// A client whose modifies wait, once armed, until `count` of them (over every client made
/// with the same `Meeting`) are in at once, or until `patience` has passed: how a test sees
/// whether sessions that send together each send at once, or wait for a thread.
final class MeetingDatabase: CloudDatabase {
    /// Where the modifies of several clients meet.
    final class Meeting: @unchecked Sendable {
        let count: Int
        let patience: TimeInterval
        // Read and written under `condition`'s lock.
        private let condition = NSCondition()
        private var isArmed = false
        private var inside = 0
        private var most = 0

        init(count: Int, patience: TimeInterval) {
            self.count = count
            self.patience = patience
        }

        /// From now on, modifies wait for each other.
        func arm() {
            condition.withLock { isArmed = true }
        }

        /// The most modifies that were in at once since it was armed.
        var mostAtOnce: Int { condition.withLock { most } }

        /// Waits, on the caller's thread, until `count` are in or `patience` has passed.
        func meet() {
            condition.lock()
            defer { condition.unlock() }
            guard isArmed else { return }
            inside += 1
            most = max(most, inside)
            condition.broadcast()
            let giveUp = Date(timeIntervalSinceNow: patience)
            while most < count, condition.wait(until: giveUp) {}
            inside -= 1
        }
    }

    private let base: any CloudDatabase
    private let meeting: Meeting

    init(_ base: any CloudDatabase, meeting: Meeting) {
        self.base = base
        self.meeting = meeting
    }

    var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    func accountStatus() async throws -> AccountStatus { try base.accountStatus() }
    func createZone(_ zone: RecordZoneID) async throws { try base.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) async throws { try base.deleteZone(zone) }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) async throws -> Data { try base.fetchAsset(reference) }

    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        meeting.meet()
        return try base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }

    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }

    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try base.records(in: zone, ofType: recordType)
    }
}
