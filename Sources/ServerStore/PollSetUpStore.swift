/// What a long poll reads before it waits, in one call: whether its webcourier URL's token
/// still serves its account, and the zone subscriptions of its database. A store that can
/// reads both at once (SQLite: one access to its pool of readers, whose hand-offs cost a
/// poll more than the reads themselves; issue 40); the others read them one after the other.
public protocol PollSetUpStore: AccountStore, SubscriptionStore {
    /// The account whose unrevoked token hashes to `tokenHash`, as
    /// `account(forAccessTokenHash:)` answers (and noting the use as it does), and the zone
    /// subscriptions of `owner`, as `subscriptions(account:)` answers.
    func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp
}

/// What `PollSetUpStore.pollSetUp(accessTokenHash:subscriptionsOf:)` read.
public struct PollSetUp: Hashable, Sendable {
    /// The account the token serves; nil if it serves none (revoked, or never given).
    public var tokenAccount: String?
    /// The database's zone subscriptions, by id.
    public var subscriptions: [ZoneSubscription]

    public init(tokenAccount: String?, subscriptions: [ZoneSubscription]) {
        self.tokenAccount = tokenAccount
        self.subscriptions = subscriptions
    }
}

extension PollSetUpStore {
    public func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp {
        PollSetUp(tokenAccount: try await account(forAccessTokenHash: tokenHash), subscriptions: try await subscriptions(account: owner))
    }
}
