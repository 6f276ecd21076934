/// How a save treats a record that changed on the server since the client read it.
public enum SavePolicy: String, Hashable, Codable, Sendable, CaseIterable {
    /// Save only if the record's change tag is the server's current one (nil for a record
    /// the server does not have); otherwise fail that record with `serverRecordChanged`.
    case ifServerRecordUnchanged
    /// Overwrite whatever the server has, whatever the change tag.
    case allKeys
}
