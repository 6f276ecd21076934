import IdeaBoxFoundation
import IdeaSync

/// The status bar: what sync is doing, how much waits to be sent, and a short message.
public struct StatusModel: Sendable, Equatable {
    /// How a message looks.
    public enum Tone: Sendable, Equatable {
        case info, success, error
    }

    /// A short message and when it goes away.
    public struct Message: Sendable, Equatable {
        /// The words.
        public var text: String
        /// How it looks.
        public var tone: Tone
        /// When it disappears.
        public var expiresAt: Timestamp
        /// Whether it answers a sync key (why `s` sent nothing, say): it goes as soon as the
        /// sync state changes, so it never contradicts the bar.
        public var isAboutSync: Bool
        /// Whether it stays until the person presses a key, whatever the time (the launch's
        /// notice of a config file with a problem: a sentence to read before the app is used).
        public var staysUntilKey = false
    }

    /// How long a message stays.
    static let messageLifetime: Int64 = 4000

    /// The sync state, in words.
    public var sync: SyncWords
    /// How many changes wait to be sent.
    public var pendingCount = 0
    /// Whether the bar adds the pending count (the sync words may already say it).
    public var showsPendingCount = true
    /// How other devices' changes arrive (`live` or `polling`); nil while nothing listens,
    /// and while no sync can happen (offline, signed out, over quota).
    public var delivery: ChangeDelivery?
    /// Whether the account's ideas travel sealed and this device holds the key: the bar
    /// says `encrypted` beside the sync state.
    public var isEncrypted = false
    /// The sync companions (the library) with changes waiting: "library: 3 pending".
    public var companionsPending: [CompanionPending] = []
    /// The current message, if any.
    public private(set) var message: Message?
    /// The settled sync state the bar last showed (a sync between two aside), nil before the
    /// first: a message explaining it goes when it changes.
    public private(set) var settledSyncKind: SyncStatus.Kind?

    /// A status bar showing `sync`.
    public init(sync: SyncWords) {
        self.sync = sync
    }

    /// Shows `text` for a few seconds from `now`; `isAboutSync` if it explains the sync
    /// state, so that it goes when the state changes.
    public mutating func show(_ text: String, tone: Tone = .info, now: Timestamp, isAboutSync: Bool = false) {
        message = Message(
            text: text, tone: tone, expiresAt: now.adding(milliseconds: Self.messageLifetime), isAboutSync: isAboutSync)
    }

    /// Shows `text` until the next key, however long that takes.
    public mutating func showUntilKey(_ text: String, tone: Tone = .info) {
        message = Message(text: text, tone: tone, expiresAt: Timestamp(milliseconds: .max), isAboutSync: false, staysUntilKey: true)
    }

    /// A key was pressed: a message that stayed until one goes.
    public mutating func keyPressed() {
        if message?.staysUntilKey == true { message = nil }
    }

    /// The engine's state is of `kind` now: a settled state other than the one the bar
    /// showed before makes a message explaining the old one go (a sync is no state of its own).
    public mutating func syncStateIs(_ kind: SyncStatus.Kind) {
        guard kind != settledSyncKind, kind != .syncing else { return }
        settledSyncKind = kind
        if message?.isAboutSync == true { message = nil }
    }

    /// Drops the message once it has expired; says whether anything changed.
    public mutating func expireMessage(now: Timestamp) -> Bool {
        guard let message, now >= message.expiresAt else { return false }
        self.message = nil
        return true
    }
}

/// The status bar's sync part: the state's words, which always show, and a detail (why, or
/// what to do) that a narrow bar cuts.
public struct SyncWords: Sendable, Equatable {
    /// The state, such as `Retrying 1/3 in 2s` or `Offline: 1 pending`.
    public var state: String
    /// Why, or what the person can do, such as `o to go online`.
    public var detail: String?

    /// `state` with `detail`.
    public init(_ state: String, detail: String? = nil) {
        self.state = state
        self.detail = detail
    }
}
