/// The kinds of request a client sends, so that a fault can target just one of them.
public enum CloudOperation: String, Hashable, Codable, Sendable, CaseIterable {
    /// `createZone`.
    case createZone
    /// `deleteZone`.
    case deleteZone
    /// `modify`: saves and deletes.
    case modify
    /// `fetchChanges`.
    case fetchChanges
    /// `records(in:ofType:)`.
    case query
    /// `uploadAsset`.
    case uploadAsset
    /// `fetchAsset`.
    case fetchAsset
}
