import IdeaBoxViewModels
import Testing

/// The status bar's message: shown for four seconds, then gone.
@Suite struct StatusModelTests {
    private static let now = ViewModelFixture.start

    @Test func startsWithTheSyncStateAndNoMessage() {
        let status = StatusModel(sync: SyncWords("Local only"))
        #expect(status.sync == SyncWords("Local only"))
        #expect(status.pendingCount == 0)
        #expect(status.message == nil)
    }

    @Test func aMessageLastsFourSeconds() throws {
        var status = StatusModel(sync: SyncWords("Local only"))
        status.show("Saved", tone: .success, now: Self.now)
        let message = try #require(status.message)
        #expect(message.text == "Saved")
        #expect(message.tone == .success)
        #expect(message.expiresAt == Self.now.adding(milliseconds: 4000))
        var expired = status.expireMessage(now: Self.now)
        #expect(!expired)
        expired = status.expireMessage(now: Self.now.adding(milliseconds: 3999))
        #expect(!expired)
        #expect(status.message?.text == "Saved")
        expired = status.expireMessage(now: Self.now.adding(milliseconds: 4000))
        #expect(expired)
        #expect(status.message == nil)
        expired = status.expireMessage(now: Self.now.adding(milliseconds: 9000))
        #expect(!expired, "nothing left to expire")
    }

    /// The launch's notice of a config file with a problem: read before the app is used, so
    /// it stays until a key, not four seconds (a loaded CI machine's first look at the screen
    /// came after it had gone).
    @Test func aMessageUntilAKeyOutlastsTheTimeAndGoesAtTheKey() {
        var status = StatusModel(sync: SyncWords("Local only"))
        status.showUntilKey("Config has a problem", tone: .error)
        let expired = status.expireMessage(now: Self.now.adding(milliseconds: 3_600_000))
        #expect(!expired)
        #expect(status.message?.text == "Config has a problem")
        status.keyPressed()
        #expect(status.message == nil)
        status.show("Saved", now: Self.now)
        status.keyPressed()
        #expect(status.message?.text == "Saved", "a timed message keeps its time")
    }

    @Test func aNewMessageReplacesTheOldOneAndItsDeadline() {
        var status = StatusModel(sync: SyncWords(""))
        status.show("first", tone: .error, now: Self.now)
        status.show("second", now: Self.now.adding(milliseconds: 3000))
        #expect(status.message?.text == "second")
        #expect(status.message?.tone == .info, "info is the default tone")
        var expired = status.expireMessage(now: Self.now.adding(milliseconds: 4500))
        #expect(!expired)
        #expect(status.message?.text == "second")
        expired = status.expireMessage(now: Self.now.adding(milliseconds: 7000))
        #expect(expired)
    }

    /// A message that explains the sync state goes when the state changes; others stay.
    @Test func aSyncMessageGoesWithItsState() {
        var status = StatusModel(sync: SyncWords("Quota exceeded — local only"))
        status.syncStateIs(.quotaExceeded)
        status.show("Nothing sent: the account's storage is full.", tone: .error, now: Self.now, isAboutSync: true)
        status.syncStateIs(.quotaExceeded)
        #expect(status.message != nil, "the same state: the message still explains it")
        status.syncStateIs(.syncing)
        #expect(status.message != nil, "a sync is no state of its own")
        #expect(status.settledSyncKind == .quotaExceeded)
        status.syncStateIs(.synced)
        #expect(status.message == nil)
        #expect(status.settledSyncKind == .synced)
        status.show("Saved “a”", tone: .success, now: Self.now)
        status.syncStateIs(.offline)
        #expect(status.message?.text == "Saved “a”")
    }
}
