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

    func accountStatus() async throws -> AccountStatus { try await base.accountStatus() }
    func createZone(_ zone: RecordZoneID) async throws {
        state.withLock { $0.createZoneCount += 1 }
        try await base.createZone(zone)
    }
    func deleteZone(_ zone: RecordZoneID) async throws { try await base.deleteZone(zone) }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) async throws -> Data { try await base.fetchAsset(reference) }

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
            result = try await base.modify(saving: sent, deleting: recordIDs, savePolicy: savePolicy)
            result.failures.merge(failures) { server, _ in server }
        } else {
            result = try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
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
        return try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }

    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await base.records(in: zone, ofType: recordType)
    }
}

/// A client whose modifies wait, once armed, until `count` of them (over every client made
/// with the same `Meeting`) are in at once, or until `patience` has passed: how a test sees
/// whether sessions that send together each send at once, or wait for a thread.
final class MeetingDatabase: CloudDatabase {
    /// Where the modifies of several clients meet.
    final class Meeting: Sendable {
        let count: Int
        let patience: TimeInterval
        private let state = Mutex(State())

        private struct State {
            var isArmed = false
            var inside = 0
            var most = 0
            /// The modifies waiting for the others, by ticket.
            var waiting: [UUID: CheckedContinuation<Void, Never>] = [:]
        }

        init(count: Int, patience: TimeInterval) {
            self.count = count
            self.patience = patience
        }

        /// From now on, modifies wait for each other.
        func arm() {
            state.withLock { $0.isArmed = true }
        }

        /// The most modifies that were in at once since it was armed.
        var mostAtOnce: Int { state.withLock { $0.most } }

        /// Awaits, holding no thread, until `count` are in or `patience` has passed.
        func meet() async {
            guard state.withLock({ $0.isArmed }) else { return }
            let ticket = UUID()
            let patience = patience
            let giveUp = Task { [self] in
                try? await Task.sleep(for: .seconds(patience))
                self.state.withLock { $0.waiting.removeValue(forKey: ticket) }?.resume()
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wake: [CheckedContinuation<Void, Never>] = state.withLock { state in
                    state.inside += 1
                    state.most = max(state.most, state.inside)
                    guard state.most >= count else {
                        state.waiting[ticket] = continuation
                        return []
                    }
                    defer { state.waiting = [:] }
                    return Array(state.waiting.values) + [continuation]
                }
                for waiter in wake { waiter.resume() }
            }
            giveUp.cancel()
            state.withLock { $0.inside -= 1 }
        }
    }

    private let base: any CloudDatabase
    private let meeting: Meeting

    init(_ base: any CloudDatabase, meeting: Meeting) {
        self.base = base
        self.meeting = meeting
    }

    var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    func accountStatus() async throws -> AccountStatus { try await base.accountStatus() }
    func createZone(_ zone: RecordZoneID) async throws { try await base.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) async throws { try await base.deleteZone(zone) }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) async throws -> Data { try await base.fetchAsset(reference) }

    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        await meeting.meet()
        return try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }

    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }

    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await base.records(in: zone, ofType: recordType)
    }
}
