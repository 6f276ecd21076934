/// How a save treats a record that changed on the server since the client read it.
public enum SavePolicy: String, Hashable, Codable, Sendable, CaseIterable {
    /// Save only if the record's change tag is the server's current one (nil for a record
    /// the server does not have); otherwise fail that record with `serverRecordChanged`.
    case ifServerRecordUnchanged
    /// Overwrite whatever the server has, whatever the change tag.
    case allKeys
}

extension SavePolicy {
    /// Why `record` may not overwrite `server` (the stored copy, nil if none) under this
    /// policy, or nil if it may.
    public func refusal(saving record: RemoteRecord, over server: RemoteRecord?) -> CloudError? {
        switch (self, server) {
        case (.allKeys, _):
            nil
        case let (.ifServerRecordUnchanged, server?):
            server.changeTag == record.changeTag ? nil : .serverRecordChanged(serverRecord: server)
        case (.ifServerRecordUnchanged, nil):
            // A change tag says the client read a server copy that is gone: it was deleted.
            record.changeTag == nil ? nil : .unknownItem
        }
    }
}
