/// What one library sync did.
public struct LibraryReport: Codable, Equatable, Sendable {
    /// Files sent to the remote, and deletes sent.
    public var uploaded = 0
    public var deletedRemotely = 0
    /// Files written from the remote, and deleted because the remote deleted them.
    public var downloaded = 0
    public var deletedLocally = 0
    /// Conflicts settled by last write wins (each loser kept under `.conflicts/`).
    public var conflicts = 0
    /// Files and records refused (unsafe paths, links, files too large), one line each.
    public var refused: [String] = []

    public init() {}
}
