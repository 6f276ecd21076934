import IdeaBoxFoundation

/// Where a library stands: its files, what waits to go up or come down, and the last sync.
public struct LibraryStatus: Codable, Equatable, Sendable {
    /// Synced files in the folder now.
    public var files: Int
    /// New or changed files, and files deleted here, not yet sent.
    public var pendingUploads: Int
    public var pendingDeletes: Int
    /// Changes on the remote not yet here; nil if the remote could not be asked.
    public var pendingDownloads: Int?
    /// Files in the folder outside the synced layout.
    public var notSynced: [String]
    public var lastSyncAt: Timestamp?
    public var lastError: String?
}
