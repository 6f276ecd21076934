import CloudKitModel
import DequeModule
import Foundation
import IdeaBoxFoundation
import Synchronization

/// At most `limit` tasks at once past it; the others wait in line, suspended: they hold no
/// thread while they wait.
///
/// Two lines: the calls that set up a long poll (`pollSetUp`: its ticket's token, its
/// subscriptions and its zones' tokens, read at once) wait in a line of their own,
/// `Lane.poll`, behind every other call. When a change wakes a thousand polls, their
/// devices' next polls come back at once: in one line they stood before the round's later
/// saves and the woken polls' answers, so the last devices of a round were told only after
/// the first ones had polled again (issue 40). A poll that starts later misses nothing (its
/// `since` look finds what changed meanwhile). So that a steady stream of other calls cannot
/// hold polls back forever, every `pollTurnEvery`-th turn given while both lines wait goes
/// to a poll.
public final class StoreGate: Sendable {
    /// The line a call waits in, as the task making it says (`StoreGate.$lane`).
    public enum Lane: Sendable {
        /// Every call but a poll's set-up, first come first served.
        case first
        /// A long poll's set-up: let in when no other call waits (but see `pollTurnEvery`).
        case poll
    }

    /// The line of the store calls made in this task and its children.
    @TaskLocal public static var lane = Lane.first

    /// While both lines wait, one turn in this many goes to the poll line.
    public static let pollTurnEvery = 8

    private struct State {
        var inside = 0
        /// Deques: with ten thousand waiting, taking the first from an array moved them all.
        var first: Deque<CheckedContinuation<Void, Never>> = []
        var polls: Deque<CheckedContinuation<Void, Never>> = []
        /// Turns given to the first line in a row while polls waited.
        var firstTurns = 0

        var isEmpty: Bool { first.isEmpty && polls.isEmpty }

        mutating func append(_ continuation: CheckedContinuation<Void, Never>, to lane: Lane) {
            switch lane {
            case .first: first.append(continuation)
            case .poll: polls.append(continuation)
            }
        }

        /// The next to let in, nil if none waits.
        mutating func next() -> CheckedContinuation<Void, Never>? {
            if !first.isEmpty && (polls.isEmpty || firstTurns < StoreGate.pollTurnEvery - 1) {
                if !polls.isEmpty { firstTurns += 1 }
                return first.removeFirst()
            }
            firstTurns = 0
            return polls.popFirst()
        }
    }

    private let state = Mutex(State())
    /// How many tasks may be inside at once.
    public let limit: Int

    public init(limit: Int) {
        precondition(limit > 0, "a gate lets at least one task in")
        self.limit = limit
    }

    /// How many tasks are inside now, and how many wait.
    public var counts: (inside: Int, waiting: Int) { state.withLock { ($0.inside, $0.first.count + $0.polls.count) } }

    /// How many of those waiting wait in the poll line.
    public var pollsWaiting: Int { state.withLock { $0.polls.count } }

    /// Runs `body` once fewer than `limit` tasks are inside, first come first served in the
    /// task's line (`lane`); throws `StoreCaller.Gone` instead if the task's caller has gone
    /// before any of its calls began.
    public func run<T>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        if let caller = StoreCaller.current, !caller.mayBegin() { throw StoreCaller.Gone() }
        return try await body()
    }

    private func enter() async {
        let lane = Self.lane
        let inAtOnce = state.withLock { state -> Bool in
            guard state.inside >= limit || !state.isEmpty else {
                state.inside += 1
                return true
            }
            return false
        }
        guard !inAtOnce else { return }
        // A task in line is let in by the one leaving (which counts it inside for it), so it
        // is never cancelled out of the line: a store call is short, and the task that waits
        // for it would only have to wait again.
        await withCheckedContinuation { continuation in
            let inAtOnce = state.withLock { state -> Bool in
                if state.inside < limit && state.isEmpty {
                    state.inside += 1
                    return true
                }
                state.append(continuation, to: lane)
                return false
            }
            if inAtOnce { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let next = state.next() else {
                state.inside -= 1
                return nil
            }
            return next
        }
        next?.resume()
    }
}

/// A store whose calls pass a `StoreGate`: at most `gate.limit` at once reach `base`, the
/// others wait suspended. For a store whose calls block their thread (SQLite's, on a pool of
/// a few readers): without it, ten thousand devices' requests at once each block a thread
/// of the server's executor in the reader pool's wait, until none is left to run the rest
/// (issue 40). In front of a store of a few connections (PostgreSQL's), calls wait here
/// instead of in its pool's queue, for the lines and the shared reads. The listening calls
/// (long-lived, or nothing on SQLite) and asset uploads (bounded by the server's upload
/// limit, and paced by their clients) pass around it. The reads of the long polls (a poll's
/// set-up, and the zone tokens of the answers one change wakes) are shared while they wait
/// in line (`WaitingReads`).
public struct GatedRecordStore: RecordStore {
    public let base: any RecordStore
    public let gate: StoreGate

    /// What a shared read is for, in which of the gate's lines.
    private struct ReadKey: Hashable, Sendable {
        var lane: StoreGate.Lane
        var name: String
    }

    private let tokenReads = WaitingReads<ReadKey, String?>()
    private let subscriptionReads = WaitingReads<ReadKey, [ZoneSubscription]>()
    private let zoneTokenReads = WaitingReads<ReadKey, [RecordZoneID: ChangeToken]>()
    private let pollSetUpReads = WaitingReads<ReadKey, PollSetUp>()

    public init(_ base: any RecordStore, limit: Int) {
        self.base = base
        gate = StoreGate(limit: limit)
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    public func account(forAccessTokenHash tokenHash: String) async throws -> String? {
        try await tokenReads.value(ReadKey(lane: StoreGate.lane, name: tokenHash), through: gate) {
            try await base.account(forAccessTokenHash: tokenHash)
        }
    }

    public func validAccessTokenHashes(among hashes: Set<String>) async throws -> Set<String> {
        try await gate.run { try await base.validAccessTokenHashes(among: hashes) }
    }

    public func accountName(matching name: String) async throws -> String? {
        try await gate.run { try await base.accountName(matching: name) }
    }

    public func addAccessToken(hash tokenHash: String, account: String, label: String) async throws {
        try await gate.run { try await base.addAccessToken(hash: tokenHash, account: account, label: label) }
    }

    public func accessTokens(account: String) async throws -> [AccessTokenEntry] {
        try await gate.run { try await base.accessTokens(account: account) }
    }

    public func revokeAccessToken(account: String, label: String) async throws -> Int {
        try await gate.run { try await base.revokeAccessToken(account: account, label: label) }
    }

    public func revokeAccessTokens(account: String) async throws -> Int {
        try await gate.run { try await base.revokeAccessTokens(account: account) }
    }

    public func deleteAccount(_ account: String) async throws -> Int {
        try await gate.run { try await base.deleteAccount(account) }
    }

    public func accessTokenAccounts() async throws -> [(account: String, validTokens: Int)] {
        try await gate.run { try await base.accessTokenAccounts() }
    }

    public func addAPIToken(hash tokenHash: String, label: String) async throws {
        try await gate.run { try await base.addAPIToken(hash: tokenHash, label: label) }
    }

    public func isValidAPIToken(hash tokenHash: String) async throws -> Bool {
        try await gate.run { try await base.isValidAPIToken(hash: tokenHash) }
    }

    public func revokeAPITokens(label: String) async throws -> Int {
        try await gate.run { try await base.revokeAPITokens(label: label) }
    }

    public func apiTokens() async throws -> [APITokenEntry] {
        try await gate.run { try await base.apiTokens() }
    }

    public func serverSecret() async throws -> Data {
        try await gate.run { try await base.serverSecret() }
    }

    public func setQuota(_ quota: AccountQuota, account: String) async throws {
        try await gate.run { try await base.setQuota(quota, account: account) }
    }

    public func quota(account: String) async throws -> AccountQuota {
        try await gate.run { try await base.quota(account: account) }
    }

    public func usage(account: String) async throws -> AccountUsage {
        try await gate.run { try await base.usage(account: account) }
    }

    public func subscriptions(account: String) async throws -> [ZoneSubscription] {
        try await subscriptionReads.value(ReadKey(lane: StoreGate.lane, name: account), through: gate) {
            try await base.subscriptions(account: account)
        }
    }

    public func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp {
        try await pollSetUpReads.value(ReadKey(lane: StoreGate.lane, name: tokenHash + " " + owner), through: gate) {
            try await base.pollSetUp(accessTokenHash: tokenHash, subscriptionsOf: owner)
        }
    }

    public func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws {
        try await gate.run { try await base.saveSubscription(subscription, account: account) }
    }

    public func deleteSubscription(id: String, account: String) async throws -> Bool {
        try await gate.run { try await base.deleteSubscription(id: id, account: account) }
    }

    public func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws {
        try await base.announceChanges(account: account, zones: zones, from: process)
    }

    public func keepListening(account: String, process: String, for duration: Duration) async throws {
        try await base.keepListening(account: account, process: process, for: duration)
    }

    public func listenForChanges(_ handler: @escaping @Sendable (_ process: String, _ account: String, _ zone: RecordZoneID) -> Void) async throws {
        try await base.listenForChanges(handler)
    }

    public func listenForChanges(
        _ handler: @escaping @Sendable (_ process: String, _ account: String, _ zone: RecordZoneID) -> Void,
        whenListening: @escaping @Sendable () -> Void
    ) async throws {
        try await base.listenForChanges(handler, whenListening: whenListening)
    }

    /// The base store's.
    public var availability: StoreAvailability? { base.availability }

    public func recordCount(account: String) async throws -> Int {
        try await gate.run { try await base.recordCount(account: account) }
    }

    public func zones(account: String) async throws -> [RecordZoneID] {
        try await gate.run { try await base.zones(account: account) }
    }

    public func zoneTokens(account: String) async throws -> [RecordZoneID: ChangeToken] {
        try await zoneTokenReads.value(ReadKey(lane: StoreGate.lane, name: account), through: gate) {
            try await base.zoneTokens(account: account)
        }
    }

    public func createZone(_ zone: RecordZoneID, account: String) async throws {
        try await gate.run { try await base.createZone(zone, account: account) }
    }

    public func deleteZone(_ zone: RecordZoneID, account: String) async throws {
        try await gate.run { try await base.deleteZone(zone, account: account) }
    }

    public func purgeDeletions(before cutoff: Timestamp) async throws -> Int {
        try await gate.run { try await base.purgeDeletions(before: cutoff) }
    }

    public func modify(
        account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool, device: String?
    ) async throws -> ModifyResult {
        try await gate.run { try await base.modify(account: account, saves: saves, deletes: deletes, atomic: atomic, device: device) }
    }

    public func changeWriters(account: String, in zone: RecordZoneID, since token: ChangeToken?, limit: Int) async throws -> [String?] {
        try await gate.run { try await base.changeWriters(account: account, in: zone, since: token, limit: limit) }
    }

    public func fetchChanges(account: String, in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await gate.run { try await base.fetchChanges(account: account, in: zone, since: token, resultsLimit: resultsLimit) }
    }

    public func records(account: String, in zone: RecordZoneID, named names: [String], byteBudget: Int) async throws -> NamedRecords {
        try await gate.run { try await base.records(account: account, in: zone, named: names, byteBudget: byteBudget) }
    }

    public func records(account: String, in zone: RecordZoneID, ofType recordType: String, after: String?, limit: Int) async throws -> [RemoteRecord] {
        try await gate.run { try await base.records(account: account, in: zone, ofType: recordType, after: after, limit: limit) }
    }

    /// The fields the query names made queryable through this store, a batch of their fill
    /// at a time through the gate (`QueryableFills`), then the page through the gate; a query
    /// waiting for a fill holds no place at the gate.
    public func query(account: String, _ query: StoredQuery) async throws -> StoredQueryPage {
        try await makeQueryable(query.fieldNames, of: query.recordType, account: account)
        return try await gate.run { try await base.query(account: account, query) }
    }

    public func markQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws -> QueryableFill? {
        try await gate.run { try await base.markQueryable(fieldNames, of: recordType, account: account) }
    }

    public func fillQueryable(_ fill: QueryableFill) async throws -> QueryableFill? {
        try await gate.run { try await base.fillQueryable(fill) }
    }

    /// The base store's.
    public var queryableFills: QueryableFills { base.queryableFills }

    public func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws {
        try await base.storeAsset(reference, bytes: bytes, account: account)
    }

    public func assetChunkCount(_ checksum: String, account: String) async throws -> Int? {
        try await gate.run { try await base.assetChunkCount(checksum, account: account) }
    }

    public func assetChunk(_ checksum: String, account: String, index: Int) async throws -> Data? {
        try await gate.run { try await base.assetChunk(checksum, account: account, index: index) }
    }

    public func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int {
        try await gate.run { try await base.collectAssets(uploadedBefore: cutoff) }
    }

    public func fieldTypes(account: String, recordTypes: Set<String>) async throws -> [String: [String: String]] {
        try await gate.run { try await base.fieldTypes(account: account, recordTypes: recordTypes) }
    }

    public func claimFieldTypes(_ types: [String: [String: String]], account: String) async throws -> [String: [String: String]] {
        try await gate.run { try await base.claimFieldTypes(types, account: account) }
    }

    public func schema(ofAccount account: String) async throws -> [FieldTypeEntry] {
        try await gate.run { try await base.schema(ofAccount: account) }
    }
}
