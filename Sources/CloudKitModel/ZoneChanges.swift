/// One page of a zone's changes since a change token.
public struct ZoneChanges: Hashable, Sendable {
    /// Records saved since the token, as they are now, in server change order. A record
    /// appears at most once per page.
    public var changed: [RemoteRecord]
    /// Records deleted since the token, in server change order.
    public var deleted: [DeletedRecord]
    /// The token covering this page; pass it to the next fetch.
    public var token: ChangeToken
    /// Whether more changes follow this page: fetch again with `token`.
    public var moreComing: Bool

    /// A page of zone changes.
    public init(changed: [RemoteRecord], deleted: [DeletedRecord], token: ChangeToken, moreComing: Bool) {
        self.changed = changed
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
    }
}
