import CloudKitModel
import EmbeddedRemote
import Foundation
@testable import IdeaBoxTUI
@testable import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import Synchronization
import Testing

/// The status bar in every sync state, reached the way the app reaches it (an engine whose
/// remote answers so), at 80 and 40 columns in both languages, each with the longest reason
/// its state can carry: the state's own words always show whole, `live` only while a sync
/// could happen, and the detail is what a narrow bar cuts.
@Suite struct StatusBarTests {
    /// The states, each with what the remote does to reach it.
    enum State: String, CaseIterable, Sendable {
        case starting, syncing, synced, retrying, failed, offline, notSignedIn, signedOutByServer, quotaExceeded, wrongAccount, locked
        /// iCloud ended the sign-in: said as iCloud's, with the command that signs in to it.
        case signedOutByICloud
        /// Synced, the account encrypted and this device unlocked.
        case syncedEncrypted
        /// This device holds a key the account no longer uses (its envelope removed).
        case lockedKeyNotInUse
        /// The local database is damaged: what to run comes before the file's long path.
        case damaged
        /// The server answers but its database does not (503 with a retry-after): said as
        /// that, not as the error it travelled as (issue 58).
        case serverDatabaseDown

        /// The state's words in the bar, which must show whole at any width.
        func words(_ language: Language) -> String {
            let english = language == .english
            return switch self {
            case .starting: english ? "Starting sync…" : "準備同步…"
            case .syncing: english ? "Syncing 8…" : "同步中 8…"
            case .synced, .syncedEncrypted: english ? "Synced " : "已同步 "
            case .retrying: english ? "Retrying 1/3 in 1s" : "1 秒後重試 1/3"
            case .failed: english ? "Sync failed · next try in 15s" : "同步失敗 · 15 秒後再試"
            case .offline: english ? "Offline: 8 pending" : "離線：8 筆待同步"
            case .notSignedIn: english ? "Not signed in — local only" : "未登入 — 僅限本機"
            case .signedOutByServer: english ? "Signed out by the server" : "已被伺服器登出"
            case .signedOutByICloud: english ? "Signed out by iCloud" : "已被 iCloud 登出"
            case .quotaExceeded: english ? "Quota exceeded — local only" : "超出儲存配額 — 僅限本機"
            case .wrongAccount: english ? "Another account's ideas — local only" : "靈感屬於其他帳號 — 僅限本機"
            case .locked: english ? "Encrypted — run ideabox account unlock" : "已加密 — 請執行 ideabox account unlock"
            case .lockedKeyNotInUse: english ? "Encrypted — key not in use" : "已加密 — 金鑰已不再使用"
            case .damaged: english ? "Database damaged — run ideabox repair" : "資料庫已損毀 — 請執行 ideabox repair"
            case .serverDatabaseDown:
                english ? "Server's database not answering" : "伺服器的資料庫沒有回應"
            }
        }

        /// Whether the remote answers in this state, so that the bar says how changes arrive:
        /// not while a failure is waited out (issue 59), nor in local mode.
        var remoteAnswers: Bool {
            switch self {
            case .starting, .syncing, .synced, .syncedEncrypted: true
            default: false
            }
        }
    }

    /// The longest reason a retry carries: a certificate this device does not trust.
    static let longestReason = CloudError.untrustedServer(
        host: "ideabox-server.household.example.internal",
        reason: "its certificate is not signed by an authority this device trusts (self-signed or expired?); "
            + "sign in again with --ca-cert FILE to trust a private authority")

    @Test(arguments: State.allCases, Language.allCases)
    func everyStateAt80And40Columns(state: State, language: Language) async throws {
        let (app, frames) = try await Self.render(state, language: language)
        for (columns, frame) in frames {
            let name = "status-bar/\(state.rawValue)-\(columns)-\(language == .english ? "en" : "zh")"
            try Screens.expect(frame, matches: name)
            let bar = Layout.line(frame.grid.rows - 1, of: frame.grid).trimmingCharacters(in: .whitespaces)
            let words = state.words(language)
            #expect(bar.hasPrefix(words), "\(name): the state's words are cut: \(bar)")
            let live = app.text.delivery(.live)
            let saysLive = bar.hasSuffix(live) || bar.contains("\(live) · ")
            #expect(state.remoteAnswers || !saysLive, "\(name): nothing is live in this state: \(bar)")
            #expect(!state.remoteAnswers || columns < 80 || saysLive, "\(name): \(bar)")
            let saysEncrypted = bar.contains(" · \(app.text.encrypted)")
            #expect(saysEncrypted == (state == .syncedEncrypted), "\(name): \(bar)")
        }
    }

    /// Issue 59: while a failure is waited out (a server down) the bar claims neither `live`
    /// nor `polling`, nor does `s` trying again meanwhile; the retry that works brings `live`
    /// back.
    @Test func noDeliveryWhileAFailureIsWaitedOutNorInTheSyncThatTriesAgain() async throws {
        let remote = try ScriptedRemote()
        let (app, engine, scheduler) = try Self.app(remote: remote, language: .english)
        defer { engine.stop() }
        engine.deliveryChanged(.live)
        remote.failure.withLock { $0 = .networkFailure }
        engine.start()
        await scheduler.runDue()
        app.tick()
        #expect(app.status.sync.state.hasPrefix("Retrying 1/3"), "\(app.status.sync)")
        #expect(app.status.delivery == nil)
        nonisolated(unsafe) var during: StatusModel?
        remote.during = {
            app.tick()
            during = app.status
        }
        app.handle(.char("s"))
        await scheduler.runDue()
        #expect(during?.sync.state.hasPrefix("Syncing") == true, "\(String(describing: during?.sync))")
        #expect(during?.delivery == nil)
        remote.failure.withLock { $0 = nil }
        await scheduler.advance(by: 1000)
        app.tick()
        #expect(app.status.sync.state.hasPrefix("Synced"), "\(app.status.sync)")
        #expect(app.status.delivery == .live)
    }

    /// A message explaining the sync state (why `s` sent nothing) goes as soon as the state
    /// changes, so the bar and the message never contradict each other.
    @Test func aSyncMessageGoesWhenTheStateChanges() async throws {
        let remote = try ScriptedRemote()
        let (app, engine, scheduler) = try Self.app(remote: remote, language: .english)
        remote.failure.withLock { $0 = .quotaExceeded }
        engine.start()
        await scheduler.runDue()
        app.tick()
        app.handle(.char("s"))
        #expect(app.status.message?.text == "Nothing sent: the account's storage is full.")
        await scheduler.runDue()
        app.tick()
        #expect(app.status.message != nil, "the same state again keeps the message")
        remote.failure.withLock { $0 = nil }
        await scheduler.advance(by: SyncEngine.localModeMilliseconds)
        app.tick()
        #expect(app.status.sync.state.hasPrefix("Synced"))
        #expect(app.status.message == nil, "\(String(describing: app.status.message))")
        engine.stop()
    }

    /// A message longer than the room beside the bar shows whole above it, wrapped.
    @Test func aLongMessageShowsWholeAboveTheBar() throws {
        let repository = try Self.repository(language: .english)
        let app = AppModel(repository: repository, language: .english, clock: .fixed(ScreenFixtures.now))
        try app.start()
        app.resize(rows: 10, columns: 40)
        app.handle(.char("x"))
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "status-bar/long-message-40-en")
        let text = (7...8).map { Layout.line($0, of: frame.grid).trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(text == "Marked done: “Offline-first sync for the ideas list”", "\(frame.grid.renderText())")
    }

    // MARK: Fixtures

    private static func repository(language: Language) throws -> IdeaRepository {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let database = try IdeaDatabase.inMemory(firstLaunch: .init(seedsSamples: false, language: language), ids: .counting())
        let repository = database.repository(clock: .fixed(ScreenFixtures.now), ids: .counting(from: 1000))
        _ = try repository.importIdeas(ideas)
        return repository
    }

    private static func app(
        remote: ScriptedRemote, language: Language, encrypted: Bool = false, shape: RecordShape = .ideabox
    ) throws -> (AppModel, SyncEngine, ManualSyncScheduler) {
        let repository = try repository(language: language)
        let scheduler = ManualSyncScheduler(start: ScreenFixtures.now)
        remote.base = remote.cloud.database(forDevice: "screen")
        let engine = SyncEngine(
            session: SyncSession(repository: repository, database: remote, shape: shape, clock: .fixed(ScreenFixtures.now)),
            scheduler: scheduler)
        var hooks = SyncHooks(
            engine: engine, isNetworkOn: { try !remote.cloud.status(device: "screen").isOffline },
            setNetworkOn: { try remote.cloud.network.setOffline(!$0, device: "screen") })
        hooks.isEncrypted = { encrypted }
        let app = AppModel(repository: repository, language: language, clock: .fixed(ScreenFixtures.now), sync: hooks)
        try app.start()
        app.resize(rows: 24, columns: 80)
        return (app, engine, scheduler)
    }

    /// The app in `state` with a long poll held, rendered at 80x24 and 40x12.
    private static func render(_ state: State, language: Language) async throws -> (AppModel, [(Int, Frame)]) {
        let remote = try ScriptedRemote()
        let (app, engine, scheduler) = try app(
            remote: remote, language: language, encrypted: state == .syncedEncrypted,
            shape: state == .signedOutByICloud ? .coreData : .ideabox)
        defer { engine.stop() }
        engine.deliveryChanged(.live)
        var frames: [(Int, Frame)] = []
        func capture() {
            app.tick()
            for (rows, columns) in [(24, 80), (12, 40)] {
                app.resize(rows: rows, columns: columns)
                frames.append((columns, AppScreen.render(app)))
            }
        }
        switch state {
        case .starting:
            capture()
            return (app, frames)
        case .syncing:
            remote.during = capture
        case .synced, .syncedEncrypted:
            break
        case .retrying, .failed:
            remote.failure.withLock { $0 = Self.longestReason }
        case .serverDatabaseDown:
            remote.failure.withLock { $0 = .serverDatabaseUnavailable(retryAfter: 2) }
        case .offline:
            try remote.cloud.network.setOffline(true, device: "screen")
        case .notSignedIn:
            try remote.cloud.network.signOut(device: "screen")
        case .signedOutByServer, .signedOutByICloud:
            remote.failure.withLock { $0 = .tokenRefused }
        case .quotaExceeded:
            remote.failure.withLock { $0 = .quotaExceeded }
        case .wrongAccount:
            try app.repository.bindAccount("家裡的帳號-personal-account-of-the-family")
            remote.account.withLock { $0 = "工作帳號" }
        case .locked:
            remote.locked.withLock { $0 = .locked(keyHeldHere: false) }
        case .lockedKeyNotInUse:
            remote.locked.withLock { $0 = .locked(keyHeldHere: true) }
        case .damaged:
            let path = "/home/someone-with-a-long-name/.local/share/ideabox/profiles/default/ideabox.sqlite"
            remote.locked.withLock { $0 = .storage(.damaged(path: path, options: ["--profile", "default"])) }
        }
        engine.start()
        await scheduler.runDue()
        if state == .failed || state == .damaged {
            for _ in 1...3 { await scheduler.advance(by: 4000) }
        }
        if state != .syncing { capture() }
        return (app, frames)
    }
}

/// The embedded remote, failing every request with `failure` while it is set, signed in to
/// `account` when that is set, and calling `during` in the middle of its first request.
final class ScriptedRemote: CloudDatabase, @unchecked Sendable {
    let cloud: SimulatedCloud
    nonisolated(unsafe) var base: (any CloudDatabase)!
    let failure = Mutex<CloudError?>(nil)
    let account = Mutex<String?>(nil)
    /// The account is encrypted and this device locked, as the app's remote says it.
    let locked = Mutex<SyncFailure?>(nil)
    nonisolated(unsafe) var during: (() -> Void)?

    init() throws {
        cloud = try SimulatedCloud.inMemory(clock: .fixed(ScreenFixtures.now))
    }

    var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    private func check() throws {
        if let during {
            self.during = nil
            during()
        }
        if let failure = failure.withLock({ $0 }) { throw failure }
    }

    func accountStatus() async throws -> AccountStatus {
        if let locked = locked.withLock({ $0 }) { throw locked }
        if let account = account.withLock({ $0 }) { return .available(accountName: account) }
        return try await base.accountStatus()
    }
    func createZone(_ zone: RecordZoneID) async throws {
        try check()
        try await base.createZone(zone)
    }
    func deleteZone(_ zone: RecordZoneID) async throws {
        try check()
        try await base.deleteZone(zone)
    }
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try check()
        return try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try check()
        return try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }
    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try check()
        return try await base.records(in: zone, ofType: recordType)
    }
    func uploadAsset(_ data: Data) async throws -> AssetReference {
        try check()
        return try await base.uploadAsset(data)
    }
    func fetchAsset(_ reference: AssetReference) async throws -> Data {
        try check()
        return try await base.fetchAsset(reference)
    }
}
