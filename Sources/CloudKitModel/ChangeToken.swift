import Foundation

/// Where a client stands in a zone's history of changes: hand it back to fetch only what
/// changed since. Opaque to clients, who store its `data` (for example in a SQLite BLOB).
public struct ChangeToken: Hashable, Codable, Sendable {
    /// The token's bytes, to store and later pass to `init(data:)`.
    public var data: Data

    /// The token whose bytes are `data`, as stored by a client.
    public init(data: Data) {
        self.data = data
    }
}
