import IdeaStore

/// What a person may choose for the app (a config file, later, sets these): everything
/// else about the app follows from its data and the terminal.
public struct AppSettings: Sendable, Equatable {
    /// The editor `E` and Ctrl-X Ctrl-E open, as a shell command line the file's path is
    /// added to; nil uses `$VISUAL`, else `$EDITOR`, else `vi`.
    public var editorCommand: String?
    /// The order of All Ideas and Completed until the person picks one with `S` (which the
    /// profile then remembers).
    public var sortOrder: IdeaOrder

    /// The defaults: the editor from the environment, newest first.
    public init(editorCommand: String? = nil, sortOrder: IdeaOrder = .newestFirst) {
        self.editorCommand = editorCommand
        self.sortOrder = sortOrder
    }
}
