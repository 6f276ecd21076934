/// One save of a modify request, with the policy it is saved under: the Web Services
/// operations `create`, `update` and `forceUpdate` each carry their own.
public struct RecordSave: Sendable {
    /// The record to save.
    public var record: RemoteRecord
    /// How the save treats a record that changed on the server.
    public var policy: SavePolicy

    /// A save of `record` under `policy`.
    public init(_ record: RemoteRecord, policy: SavePolicy) {
        self.record = record
        self.policy = policy
    }
}
