import IdeaBoxCore
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
    }

    /// How long a message stays.
    static let messageLifetime: Int64 = 4000

    /// The sync state, in words.
    public var syncState: String
    /// How many changes wait to be sent.
    public var pendingCount = 0
    /// Whether the bar adds the pending count (the sync words may already say it).
    public var showsPendingCount = true
    /// How other devices' changes arrive (`live` or `polling`); nil while nothing listens.
    public var delivery: ChangeDelivery?
    /// The sync companions (the library) with changes waiting: "library: 3 pending".
    public var companionsPending: [CompanionPending] = []
    /// The current message, if any.
    public private(set) var message: Message?

    /// A status bar showing `syncState`.
    public init(syncState: String) {
        self.syncState = syncState
    }

    /// Shows `text` for a few seconds from `now`.
    public mutating func show(_ text: String, tone: Tone = .info, now: Timestamp) {
        message = Message(text: text, tone: tone, expiresAt: now.adding(milliseconds: Self.messageLifetime))
    }

    /// Drops the message once it has expired; says whether anything changed.
    public mutating func expireMessage(now: Timestamp) -> Bool {
        guard let message, now >= message.expiresAt else { return false }
        self.message = nil
        return true
    }
}
