import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Synchronization

/// One sync of one device: check the account, fetch the remote's changes since the stored
/// token, then send the outbox in batches. Asynchronous: the engine starts it in a task
/// (its one crossing from its Dispatch loop), and `ideabox sync` awaits it.
public struct SyncSession: Sendable {
    /// The most changes one request sends; halved when the remote answers `limitExceeded`.
    public static let batchLimit = 100
    /// The most changes one fetch asks for.
    public static let fetchLimit = 1000

    let repository: IdeaRepository
    let database: any CloudDatabase
    /// How ideas travel on that remote.
    public let shape: RecordShape
    let clock: WallClock
    /// The name this device goes by where a person gave it none (`ideabox device name`):
    /// the config file's, else the host's; nil sends no name.
    private let defaultDeviceName: String?
    /// The account the sync under way checked its ideas belong to: what it fetched and had
    /// acknowledged is written only while they still do (a sign-in elsewhere may carry them
    /// to another account midway).
    let checked = CheckedAccount()

    /// The zone ideas of our own shape live in (`RecordShape.ideabox`).
    public static let zone = IdeaRecord.zone
    /// The record type of ideas of our own shape.
    public static let recordType = IdeaRecord.recordType

    /// The zone this session's ideas live in: what a device listens to for notifications.
    public var zone: RecordZoneID { shape.zone }

    /// A session syncing `repository` with `database`, where ideas travel as `shape` says;
    /// this device's records carry its name, the one a person gave it or else `defaultDeviceName`.
    public init(
        repository: IdeaRepository, database: any CloudDatabase, shape: RecordShape = .ideabox, clock: WallClock,
        defaultDeviceName: String? = nil
    ) {
        self.repository = repository
        self.database = database
        self.shape = shape
        self.clock = clock
        self.defaultDeviceName = defaultDeviceName
    }

    /// The names records go out with, by device: every name this device knows, its own
    /// included. Names are a courtesy: one that can't be read sends none.
    func namesToSend() -> [String: String] {
        var names = (try? repository.deviceNames().names) ?? [:]
        if names[repository.deviceId] == nil, let own = defaultDeviceName.flatMap(DeviceNames.normalized) {
            names[repository.deviceId] = own
        }
        return names
    }

    /// Records why a sync failed: the last error, and a line in the sync log.
    public func recordFailure(_ failure: SyncFailure) {
        try? repository.recordSyncFailure(
            english: failure.message(in: .english), chinese: failure.message(in: .traditionalChinese), at: clock.now())
    }

    /// How many changes wait to be sent.
    public func pendingCount() -> Int {
        (try? repository.pendingChangeCount()) ?? 0
    }

    /// Syncs once: pull, then push. One the profile's sign-in to another account cut short
    /// ends there, quietly: the next sync is the new account's.
    public func run() async throws(SyncFailure) -> SyncReport {
        var report = SyncReport()
        try await perform {
            do {
                try await prepare()
                try await pull(into: &report)
                try await push(into: &report)
                try repository.recordSyncSuccess(at: clock.now())
            } catch is AccountMovedDuringSync {
                try repository.logSyncEvent(.accountMovedDuringSync, at: clock.now())
            }
        }
        return report
    }

    /// Sends the outbox without fetching first, as a local change asks (cut short quietly,
    /// as `run`, by a sign-in to another account): each change goes
    /// with the change tag this device last saw, and one the remote changed since comes back
    /// as a conflict carrying the remote's record, which the conflict rule settles (a local
    /// version that wins goes out again over the remote's tag). What the change token covers
    /// does not move: other devices' changes come with a notification or the safety fetch. A
    /// device that has never fetched syncs whole (`run`).
    public func send() async throws(SyncFailure) -> SyncReport {
        var report = SyncReport()
        var neverFetched = false
        try await perform {
            do {
                try abandonUnfinishedOverwrite()
                neverFetched = try await checkedAccount().changeToken == nil
                guard !neverFetched else { return }
                try await push(into: &report)
                try repository.recordSyncSuccess(at: clock.now())
            } catch is AccountMovedDuringSync {
                try repository.logSyncEvent(.accountMovedDuringSync, at: clock.now())
            }
        }
        if neverFetched { return try await run() }
        return report
    }

    /// Makes the remote hold exactly this device's ideas: everything here is stamped anew
    /// and sent, and whatever only the remote has is deleted; other devices follow. All or
    /// nothing here: if it fails, what it had not sent is taken back (`abandonOverwrite`).
    public func overwriteRemote() async throws(SyncFailure) -> SyncReport {
        var report = SyncReport()
        try await perform {
            try await prepare()
            let remote = try await listing()
            var local = Set<UUID>()
            try repository.forEachSyncState { local.insert($0.ideaId) }
            var tags: [UUID: String] = [:]
            for (record, change) in remote {
                if let tag = record.changeTag { tags[change.ideaId] = tag }
            }
            // What the listing showed orders the overwrite: its stamps and deletes come after
            // every version read, whatever this device's clock says.
            try repository.noteSeen(remote.map(\.change))
            try repository.beginOverwrite(remoteTags: tags, deleting: tags.keys.filter { !local.contains($0) })
            try repository.logSyncEvent(.overwriting(count: local.count), at: clock.now())
            do {
                try await push(into: &report)
                // A change the remote refused stays queued: the overwrite did not happen whole.
                if try repository.overwriteIsPending() { throw CloudError(code: .partialFailure) }
            } catch {
                // Whatever did not reach the remote is taken back here, so no later sync
                // carries the overwrite out over edits it never saw; the next one starts anew.
                try repository.abandonOverwrite()
                try repository.logSyncEvent(.overwriteAbandoned, at: clock.now())
                throw error
            }
            try repository.finishOverwrite()
            try await pull(into: &report)
            try repository.recordSyncSuccess(at: clock.now())
        }
        return report
    }

    /// The most ideas the integrity check compares: it lists every record of the remote and
    /// holds them all (a million ideas are gigabytes and minutes, at every start of the app).
    public static let integrityCheckLimit = 10_000

    /// Compares this device with the remote and logs each difference as a warning, apart
    /// from changes still waiting to be sent. Returns the differences. A device holding
    /// more than `limit` ideas is not compared, and the log says so.
    public func checkIntegrity(comparingAtMost limit: Int = Self.integrityCheckLimit) async throws(SyncFailure) -> [String] {
        var differences: [String] = []
        var events: [SyncLogEvent] = []
        try await perform {
            let ideas = try repository.counts().all
            guard ideas <= limit else {
                try repository.logSyncEvent(.integrityLeftOut(ideas: ideas, limit: limit), at: clock.now())
                return
            }
            try await prepare()
            var remote: [UUID: RemoteChange] = [:]
            for (_, change) in try await listing() {
                remote[change.ideaId] = change
            }
            let pending = Set(try repository.pendingChanges(limit: Int.max).map(\.ideaId))
            try repository.forEachSyncState { local in
                let id = local.ideaId
                let theirs = remote.removeValue(forKey: id)
                guard !pending.contains(id) else { return }
                let shortId = String(id.lowercasedString.prefix(8))
                switch (local, theirs) {
                case let (.saved(idea, _), nil):
                    events.append(.onlyHere(title: idea.title, id: shortId))
                case (.deleted, nil):
                    break
                case let (_, theirs?) where !Self.agree(local, theirs):
                    events.append(.differs(
                        title: Self.title(of: local) ?? Self.title(of: theirs) ?? "", id: shortId,
                        here: local.order.timestamp, remote: theirs.order.timestamp))
                default:
                    break
                }
            }
            for (id, change) in remote where !pending.contains(id) {
                if case .saved(let idea, _) = change {
                    events.append(.onlyOnRemote(title: idea.title, id: String(id.lowercasedString.prefix(8))))
                }
            }
            let now = clock.now()
            for difference in events.prefix(20) {
                try repository.logSyncEvent(difference, at: now)
            }
            if events.count > 20 {
                try repository.logSyncEvent(.integrityMoreDifferences(count: events.count - 20), at: now)
            }
            if events.isEmpty {
                try repository.logSyncEvent(.integrityAgrees, at: now)
            }
            differences = events.map { $0.text(in: .english) }
        }
        return differences
    }

    /// Whether two states of an idea are the same: the same delete, or the same values with
    /// the same field stamps.
    /// The idea's title, if the change holds the idea.
    private static func title(of change: RemoteChange) -> String? {
        if case .saved(let idea, _) = change { idea.title } else { nil }
    }

    private static func agree(_ here: RemoteChange, _ there: RemoteChange) -> Bool {
        switch (here, there) {
        case let (.deleted(_, mine), .deleted(_, theirs)): mine == theirs
        case let (.saved(mine, myStamps), .saved(theirs, theirStamps)):
            myStamps == theirStamps && mine.fieldsDiffering(from: theirs).isEmpty && mine.createdAt == theirs.createdAt
        default: false
        }
    }

    // MARK: Steps

    /// Runs `body`, turning remote and store errors into sync failures (a refused token
    /// iCloud's, on iCloud).
    private func perform(_ body: () async throws -> Void) async throws(SyncFailure) {
        do {
            try await body()
        } catch let failure as SyncFailure {
            throw failure
        } catch let error as CloudError {
            let failure = SyncFailure(error)
            throw failure == .signedOutByServer && shape == .coreData ? .signedOutByICloud : failure
        } catch {
            throw SyncFailure(localError: error)
        }
    }

    /// The account must be signed in and the one this device's ideas belong to; the zone
    /// must exist. It is created once, before the first fetch: a device with a change token
    /// had it, and a fetch that finds it gone creates it again.
    private func prepare() async throws {
        try abandonUnfinishedOverwrite()
        let broughtBack = try repository.bringBackFutureTimes()
        if broughtBack > 0 { try repository.logSyncEvent(.futureTimesBroughtBack(count: broughtBack), at: clock.now()) }
        let metadata = try await checkedAccount()
        if metadata.changeToken == nil {
            try await database.createZone(shape.zone)
        }
    }

    /// Takes back an overwrite of the remote that a process ended midway left queued here:
    /// only `overwriteRemote` carries one out, never a later sync.
    private func abandonUnfinishedOverwrite() throws {
        if try repository.abandonOverwrite() {
            try repository.logSyncEvent(.overwriteAbandoned, at: clock.now())
        }
    }

    /// Checks, without the network, that the device is signed in to the account its ideas
    /// belong to (binding them to it the first time), as every sync of anything must: a sync
    /// of the library alone runs this before it.
    public func checkAccount() async throws(SyncFailure) {
        try await perform { _ = try await checkedAccount() }
    }

    private func checkedAccount() async throws -> SyncMetadata {
        checked.set(nil)
        guard case .available(let account) = try await database.accountStatus() else { throw SyncFailure.notSignedIn }
        defer { checked.set(account) }
        let metadata = try repository.syncMetadata()
        let bound = metadata.accountName
        if let bound, bound != account {
            throw SyncFailure.wrongAccount(bound: bound, current: account)
        }
        if bound == nil {
            try repository.bindAccount(account)
        }
        return metadata
    }

    /// Fetches the remote's changes page by page, each page applied with its token in one
    /// transaction. While a page is applied, the next one is fetched and read in a child task
    /// (the remote and this device's database are separate files), so a first sync keeps
    /// both cores busy.
    ///
    /// An expired token starts over from the beginning, and whatever this device holds
    /// that the remote no longer has is queued to be sent again (the zone may have been
    /// deleted and created anew); a missing zone is created again and everything here is
    /// queued to be sent again. So is a record someone removed outright.
    private func pull(into report: inout SyncReport) async throws {
        // The group holds the page fetched ahead, at most one; a failed pull cancels it and
        // waits for it, so no fetch runs on behind it.
        try await withThrowingTaskGroup(of: Page.self) { prefetch in
            try await pull(into: &report, prefetch: &prefetch)
        }
    }

    private func pull(into report: inout SyncReport, prefetch: inout ThrowingTaskGroup<Page, any Error>) async throws {
        var token = try repository.syncMetadata().changeToken.map(ChangeToken.init(data:))
        // A pull from the start learns which ideas the account holds: a device joining an
        // account that has ideas takes the account's samples, not its own.
        if token == nil { try repository.beginPullFromStart() }
        var restartedZone = false
        var refetched: Set<UUID>?
        var prefetched = false
        var latestReceipt: Timestamp?
        while true {
            let page: Page
            do {
                if prefetched, let next = try await prefetch.next() {
                    prefetched = false
                    page = next
                } else {
                    prefetched = false
                    page = try await fetchPage(since: token)
                }
            } catch let error as CloudError where error.code == .changeTokenExpired && token != nil {
                try repository.logSyncEvent(.changeTokenExpired, at: clock.now())
                try repository.beginPullFromStart()
                token = nil
                refetched = []
                continue
            } catch let error as CloudError where error.code == .zoneNotFound && !restartedZone {
                restartedZone = true
                try await recreateZone()
                token = nil
                continue
            }
            let changes = page.changes
            if changes.moreComing {
                let session = self
                prefetch.addTask { try await session.fetchPage(since: changes.token) }
                prefetched = true
            }
            for recordID in page.invalid {
                try repository.logSyncEvent(.skippedInvalidRecord(name: "\(recordID)"), at: clock.now())
            }
            try repository.rememberRecordNames(page.recordNames)
            var remote = try refusingReplays(page.remote)
            let deletions = try deletions(changes.deleted)
            if !deletions.isEmpty { remote = PreparedRemoteChanges(remote.changes + deletions) }
            refetched?.formUnion(page.remote.changes.map(\.ideaId))
            if !page.remote.changes.isEmpty || changes.token != token {
                let summary = try repository.applyRemoteChanges(
                    remote, tags: page.tags, deviceNames: page.names, changeToken: .set(changes.token.data),
                    syncedAt: clock.now(), account: checked.account, rule: ConflictRule.decide)
                report.received += summary.applied
                report.conflicts += summary.conflicts
            }
            token = changes.token
            if let receipt = page.latestReceipt { latestReceipt = max(latestReceipt ?? receipt, receipt) }
            if !changes.moreComing { break }
        }
        // Another device's save the remote received later than this clock says now: this
        // clock is behind the remote's.
        if let latestReceipt { try repository.noteRemoteTime(latestReceipt, at: clock.now(), isLowerBound: true) }
        try repository.finishPullFromStart()
        if let refetched {
            var missing: [UUID] = []
            try repository.forEachSyncState { if !refetched.contains($0.ideaId) { missing.append($0.ideaId) } }
            try repository.requeue(missing)
        }
    }

    /// `remote` without the versions older than what this device settled with the remote
    /// (`ReplayRule`): each is logged and left unmerged, and this device's version is queued
    /// to be sent again (over the tag the old version came with), so a server restored from
    /// a backup gets the present back. The page's other changes are applied as usual.
    private func refusingReplays(_ remote: PreparedRemoteChanges) throws -> PreparedRemoteChanges {
        let settled = try repository.settledStates(of: remote.changes.map(\.ideaId))
        guard !settled.isEmpty else { return remote }
        var kept: [RemoteChange] = []
        var refused: [UUID] = []
        let now = clock.now()
        for change in remote.changes {
            guard let mine = settled[change.ideaId], ReplayRule.isReplay(change, settled: mine) else {
                kept.append(change)
                continue
            }
            refused.append(change.ideaId)
            let title = if case .saved(let idea, _) = mine { idea.title } else { "" }
            let id = String(change.ideaId.lowercasedString.prefix(8))
            try repository.logSyncEvent(
                .warning, english: SyncLogText.replayRefused(title: title, id: id, .english),
                chinese: SyncLogText.replayRefused(title: title, id: id, .traditionalChinese), at: now)
        }
        guard !refused.isEmpty else { return remote }
        try repository.requeue(refused)
        return PreparedRemoteChanges(kept)
    }

    /// One page of the remote's changes, read as ideas.
    private struct Page: Sendable {
        var changes: ZoneChanges
        var remote = PreparedRemoteChanges([])
        var tags: [UUID: String] = [:]
        /// The names the records' writers go by.
        var names: [DeviceNaming] = []
        /// The name of each idea's record, where the app named it.
        var recordNames: [UUID: String] = [:]
        /// Records that are not valid ideas: skipped, and logged.
        var invalid: [RecordID] = []
        /// The latest time the remote received one of the page's records.
        var latestReceipt: Timestamp? { changes.changed.compactMap(\.modificationDate).max() }
    }

    /// Fetches the page of changes after `token`, reads its records as ideas and works out
    /// their search text.
    private func fetchPage(since token: ChangeToken?) async throws -> Page {
        var page = Page(changes: try await database.fetchChanges(in: shape.zone, since: token, resultsLimit: Self.fetchLimit))
        var remote: [RemoteChange] = []
        for record in page.changes.changed {
            switch try await reading(record) {
            case .change(let change, let naming):
                remote.append(change)
                if let tag = record.changeTag { page.tags[change.ideaId] = tag }
                if let naming { page.names.append(naming) }
                if shape == .coreData { page.recordNames[change.ideaId] = record.recordID.recordName }
            case .invalid, .needsAssets:
                page.invalid.append(record.recordID)
            case .foreign:
                continue
            }
        }
        page.remote = PreparedRemoteChanges(remote)
        return page
    }
}

/// The account a session's sync under way checked, shared by the copies of the session.
final class CheckedAccount: Sendable {
    private let value = Mutex<String?>(nil)

    var account: String? { value.withLock { $0 } }

    func set(_ account: String?) {
        value.withLock { $0 = account }
    }
}
