/// CloudKit's limits that every side of a remote keeps: the client splitting its requests,
/// the web services refusing a longer one, a store's default.
public enum CloudKitLimits {
    /// The most operations a server takes in one request.
    public static let maximumOperations = 200
}
