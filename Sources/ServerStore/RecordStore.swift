/// What `ideabox serve` keeps its accounts' records and tokens in, each call on behalf of
/// one account: the five focused stores in one. Its callers take the part they need
/// (`RecordZoneStore`, `AccountStore`, `AssetStore`, `SubscriptionStore`,
/// `RecordSchemaStore`, and `PollSetUpStore`, three of them read at once); a store conforms
/// to the whole.
public protocol RecordStore: RecordZoneStore, AccountStore, AssetStore, SubscriptionStore, RecordSchemaStore, PollSetUpStore {
    /// Whether the store answers, for a store that can stop answering while the server runs
    /// (a database over the network); nil for one that cannot.
    var availability: StoreAvailability? { get }
}

extension RecordStore {
    /// None: a store that cannot stop answering while the server runs (a file of its own).
    public var availability: StoreAvailability? { nil }
}
