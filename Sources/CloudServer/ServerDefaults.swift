/// What `serve` runs with unless told otherwise, defined once: the server's own settings
/// start from these, and the `serve` command's settings and help text name them (its fair
/// shares are `FairShareLimits.defaults`).
public enum ServerDefaults {
    /// The address and port listened on.
    public static let listen = "127.0.0.1:8420"
    /// How long a connection may send nothing before it is closed, in seconds.
    public static let idleTimeoutSeconds = 30
    /// How long a stop lets the requests in flight finish, in seconds.
    public static let shutdownTimeoutSeconds = 10
    /// The most asset uploads received at once.
    public static let maximumUploads = 16
    /// How long a record's deletion is remembered, in days.
    public static let tombstoneRetentionDays = 90
}
