import IdeaStore

/// The sync log overlay (`l`): the newest log lines and conflicts, a scroll position, and
/// the "overwrite remote" question.
public struct SyncLogView: Sendable, Equatable {
    /// The sync log, newest first.
    public var entries: [SyncLogEntry] = []
    /// The conflict log, newest first.
    public var conflicts: [ConflictRecord] = []
    /// How many lines are scrolled off the top.
    public var scroll = 0
    /// Whether the overlay is asking "overwrite the remote? y/n".
    public var isConfirmingOverwrite = false
}
