import Foundation
import IdeaBoxFoundation

/// One idea: a one-line title, an optional description and a done flag, plus what sync
/// needs to order changes from many devices.
public struct Idea: Sendable, Hashable, Identifiable {
    /// The idea's identity, the same on every device.
    public var id: UUID
    /// One line, 1 to 256 characters.
    public var title: String
    /// Free text of up to 4096 characters; may hold newlines.
    public var description: String
    /// Whether the idea is done.
    public var isCompleted: Bool
    /// When the idea was first made (UTC, milliseconds). Lists sort by it, newest first.
    public var createdAt: Timestamp
    /// When the idea was last changed; never earlier than `createdAt`.
    public var updatedAt: Timestamp
    /// The device that made the last change. Breaks ties between equal `updatedAt`s.
    public var deviceId: String
    /// Starts at 0 and grows by one with each local edit.
    public var version: Int
    /// When the idea last reached or came from the remote, if ever.
    public var lastSyncedAt: Timestamp?

    /// Creates an idea from all of its fields, as they are; see `IdeaRules` for checking them.
    public init(
        id: UUID,
        title: String,
        description: String = "",
        isCompleted: Bool = false,
        createdAt: Timestamp,
        updatedAt: Timestamp? = nil,
        deviceId: String,
        version: Int = 0,
        lastSyncedAt: Timestamp? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.isCompleted = isCompleted
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.deviceId = deviceId
        self.version = version
        self.lastSyncedAt = lastSyncedAt
    }

    /// The id as IdeaBox prints it: lower-case UUID text.
    public var idString: String { id.lowercasedString }

    /// The first eight characters of the id: enough to name an idea on the command line.
    public var shortId: String { String(idString.prefix(8)) }
}

extension Idea: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, title, description, isCompleted, createdAt, updatedAt, deviceId, version, lastSyncedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let idText = try container.decode(String.self, forKey: .id)
        guard let id = UUID(hexText: idText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: container, debugDescription: "\"\(idText)\" is not a UUID")
        }
        self.id = id
        title = try container.decode(String.self, forKey: .title)
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        isCompleted = try container.decodeIfPresent(Bool.self, forKey: .isCompleted) ?? false
        createdAt = try container.decode(Timestamp.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(Timestamp.self, forKey: .updatedAt) ?? createdAt
        deviceId = try container.decode(String.self, forKey: .deviceId)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 0
        lastSyncedAt = try container.decodeIfPresent(Timestamp.self, forKey: .lastSyncedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(idString, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(isCompleted, forKey: .isCompleted)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(deviceId, forKey: .deviceId)
        try container.encode(version, forKey: .version)
        try container.encode(lastSyncedAt, forKey: .lastSyncedAt)
    }
}
