import CloudKitModel
import Foundation
import Synchronization

/// A remote as the sync benchmark sees it: every `modify` and `fetchChanges` is timed from
/// the client's side, and one of them can be made to fail with a network failure (the
/// connection cut halfway through an initial sync), so the next run has to resume.
final class MeasuredDatabase: CloudDatabase {
    private let inner: any CloudDatabase
    private struct State {
        var modifies = Measurement(name: "records/modify, from the client")
        var fetches = Measurement(name: "records/changes, from the client")
        /// The request (counting modifies and fetches together) that fails, once.
        var cutAt: Int?
        var requests = 0
    }
    private let state = Mutex(State())

    init(_ inner: any CloudDatabase) {
        self.inner = inner
    }

    /// After `count` more modifies and fetches, the next one fails with
    /// `CloudError.networkFailure`, without reaching the remote.
    func cut(afterRequests count: Int) {
        state.withLock { $0.cutAt = $0.requests + count + 1 }
    }

    var modifies: Measurement { state.withLock { $0.modifies } }
    var fetches: Measurement { state.withLock { $0.fetches } }

    var maximumRecordsPerRequest: Int { inner.maximumRecordsPerRequest }

    func accountStatus() async throws -> AccountStatus { try await inner.accountStatus() }
    func createZone(_ zone: RecordZoneID) async throws { try await inner.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) async throws { try await inner.deleteZone(zone) }

    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try await timed(\.modifies) { try await inner.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy) }
    }

    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await timed(\.fetches) { try await inner.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit) }
    }

    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await inner.records(in: zone, ofType: recordType)
    }

    func uploadAsset(_ data: Data) async throws -> AssetReference { try await inner.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) async throws -> Data { try await inner.fetchAsset(reference) }

    /// Runs one request (unless it is the one cut) and records its time in `measurement`.
    private func timed<T>(_ measurement: WritableKeyPath<State, Measurement>, _ request: () async throws -> T) async throws -> T {
        try countRequest()
        let start = ContinuousClock.now
        let value = try await request()
        let duration = ContinuousClock.now - start
        state.withLock { $0[keyPath: measurement].record(duration) }
        return value
    }

    private func countRequest() throws {
        let cut = state.withLock { state -> Bool in
            state.requests += 1
            guard state.requests == state.cutAt else { return false }
            state.cutAt = nil
            return true
        }
        if cut { throw CloudError.networkFailure }
    }
}

/// The most anonymous memory (`RssAnon`) this process has while it runs, sampled every
/// 20 ms by a thread of its own, beside what it had when it started.
final class MemorySampler: Sendable {
    /// `RssAnon` when sampling started, in bytes.
    let before: Int
    private let peak = Mutex(0)
    private let stopped = Mutex(false)

    init() {
        before = ProcessRunner.anonymousBytes(of: ProcessInfo.processInfo.processIdentifier)
        Thread.detachNewThread { self.sample() }
    }

    private func sample() {
        let pid = ProcessInfo.processInfo.processIdentifier
        while !stopped.withLock({ $0 }) {
            let bytes = ProcessRunner.anonymousBytes(of: pid)
            peak.withLock { $0 = max($0, bytes) }
            usleep(20_000)
        }
    }

    /// Stops sampling (the thread ends at its next look, without being waited for); the
    /// peak seen so far, in bytes.
    func stop() -> Int {
        stopped.withLock { $0 = true }
        return max(before, peak.withLock { $0 })
    }
}
