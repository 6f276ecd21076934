import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// One version of an idea as `ideabox history --json` prints it: `version` (null for the
/// current one), `writtenAt`, `deviceId` and `deviceName` (null for a device that never
/// said its name), `replacedAt` and `reason` (null for the current one), `fields` (those it differs in from what replaced it), its values, and `isDeleted`.
struct HistoryJSON: Encodable {
    var version: Int64?
    var ideaId: String
    var writtenAt: Timestamp
    var deviceId: String
    var deviceName: String?
    var replacedAt: Timestamp?
    var reason: HistoryReason?
    var fields: [IdeaField]
    var title: String
    var description: String
    var isCompleted: Bool
    var isDeleted: Bool

    init(_ version: IdeaVersion, names: DeviceNames) {
        self.version = version.number
        ideaId = version.ideaId.lowercasedString
        writtenAt = version.writtenAt
        deviceId = version.writtenBy
        deviceName = names.names[version.writtenBy]
        replacedAt = version.replacedAt
        reason = version.reason
        fields = version.fields
        title = version.title
        description = version.description
        isCompleted = version.isCompleted
        isDeleted = version.isDeleted
    }

    private enum CodingKeys: String, CodingKey {
        case version, ideaId, writtenAt, deviceId, deviceName, replacedAt, reason, fields, title, description, isCompleted, isDeleted
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(ideaId, forKey: .ideaId)
        try container.encode(writtenAt, forKey: .writtenAt)
        try container.encode(deviceId, forKey: .deviceId)
        try container.encode(deviceName, forKey: .deviceName)
        try container.encode(replacedAt, forKey: .replacedAt)
        try container.encode(reason, forKey: .reason)
        try container.encode(fields, forKey: .fields)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(isCompleted, forKey: .isCompleted)
        try container.encode(isDeleted, forKey: .isDeleted)
    }
}
