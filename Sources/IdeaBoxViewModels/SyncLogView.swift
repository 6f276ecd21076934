import IdeaStore

/// The sync log overlay (`l`): the newest log lines and conflicts, a scroll position, and
/// the "overwrite remote" questions.
public struct SyncLogView: Sendable, Equatable {
    /// What an "overwrite the remote with this device's data" question is about.
    public enum Overwrite: Sendable, Equatable {
        /// The ideas (`O`).
        case ideas
        /// A sync companion's data, by its name (`L`: the library folder).
        case companion(String)
    }

    /// The sync log, newest first.
    public var entries: [SyncLogEntry] = []
    /// The conflict log, newest first.
    public var conflicts: [ConflictRecord] = []
    /// How many lines are scrolled off the top.
    public var scroll = 0
    /// The "overwrite the remote? y/n" question the overlay is asking, if any.
    public var confirmingOverwrite: Overwrite?

    /// The lines a conflict takes: when and what, the winner, the loser.
    public static let linesPerConflict = 3

    /// The overlay's lines: the log (or its empty notice), a blank line, the conflicts
    /// heading and the conflicts (or their empty notice).
    public var lineCount: Int { max(1, entries.count) + 2 + max(1, conflicts.count * Self.linesPerConflict) }
}
