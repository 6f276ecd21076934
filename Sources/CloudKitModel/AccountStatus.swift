/// Whether the device is signed in to an account, and to which.
public enum AccountStatus: Hashable, Codable, Sendable {
    /// Signed in to the account `accountName`; its private database is reachable.
    case available(accountName: String)
    /// Signed out: every request fails with `CloudError.notAuthenticated`.
    case noAccount
}
