import CloudKitModel

/// What a long poll reads before it waits, in one call: whether its webcourier URL's token
/// still serves its account, the zone subscriptions of its database, and where each of the
/// database's zones stands. A store that can reads them at once (SQLite: one access to its
/// pool of readers, whose hand-offs cost a poll more than the reads themselves; PostgreSQL:
/// one statement, one round trip; issue 40); the others read them one after the other.
public protocol PollSetUpStore: AccountStore, SubscriptionStore, RecordZoneStore {
    /// The account whose unrevoked token hashes to `tokenHash`, as
    /// `account(forAccessTokenHash:)` answers (and noting the use as it does), the zone
    /// subscriptions of `owner`, as `subscriptions(account:)` answers, and the tokens of
    /// `owner`'s zones, as `zoneTokens(account:)` answers. Each is read after the call began:
    /// a poll registered before it misses no change.
    func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp
}

/// What `PollSetUpStore.pollSetUp(accessTokenHash:subscriptionsOf:)` read.
public struct PollSetUp: Hashable, Sendable {
    /// The account the token serves; nil if it serves none (revoked, or never given).
    public var tokenAccount: String?
    /// The database's zone subscriptions, by id.
    public var subscriptions: [ZoneSubscription]
    /// The token of each of the database's zones: where its latest change stands.
    public var zoneTokens: [RecordZoneID: ChangeToken]

    public init(tokenAccount: String?, subscriptions: [ZoneSubscription], zoneTokens: [RecordZoneID: ChangeToken]) {
        self.tokenAccount = tokenAccount
        self.subscriptions = subscriptions
        self.zoneTokens = zoneTokens
    }
}

extension PollSetUpStore {
    public func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp {
        PollSetUp(
            tokenAccount: try await account(forAccessTokenHash: tokenHash), subscriptions: try await subscriptions(account: owner),
            zoneTokens: try await zoneTokens(account: owner))
    }
}
