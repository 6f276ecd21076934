import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// How an idea travels as a remote record, and back: the product's CloudKit contract
/// (`id`, `title`, `description`, `isCompleted` and `version` as `INT64`, `createdAt` and
/// `updatedAt` as `TIMESTAMP`, `deviceId`; `lastSyncedAt` is the device's own and stays
/// local), named by the idea's id.
///
/// Each field's own stamp travels in one more field, `fieldStamps` (a `STRING`): the title's,
/// the description's and the done flag's, separated by `;`, each the stamp's time in
/// milliseconds since 1970 and, if another device than the record's `deviceId` wrote that
/// field, a space and that device's id (`1764061200000;1764061100000 2f1c…;1764061200000`).
/// A record without it, or whose `updatedAt` and `deviceId` are later than every stamp in it
/// (a client that knows nothing of it wrote the record), reads as every field stamped at
/// `updatedAt` by `deviceId`; an untouched sample's stamps are time 0.
///
/// A version read from the remote is ordered no later than the remote received it
/// (`ArrivalRule`, by the record's modification date): a device whose clock runs ahead
/// moves no other device's clock into the future.
///
/// The writer's name travels in `deviceName` (a `STRING`): its device id, a space, and the
/// name a person knows it by (`laptop`), so that other devices say "on laptop" instead of an
/// id. The id in it makes a name left behind by a client that knows nothing of the field (a
/// Web Services `update` keeps the fields it does not send) never pass for the next
/// writer's; a record without one reads as written on "another device".
///
/// A delete travels as a record too (`isDeleted` = 1, stamped with the delete's time and
/// device), never as a removal: that way a delete has a place in the one sync order, and a
/// device that missed it still can't bring the idea back with an older edit. Its title and
/// description are sent empty, so that a save that merges into the server's copy (Web
/// Services' `update`) leaves none of the deleted idea's words there.
enum IdeaRecord {
    /// The record type of ideas.
    static let recordType = "Idea"
    /// The custom zone ideas live in (CloudKit fetches changes only for custom zones).
    static let zone = RecordZoneID(zoneName: "Ideas")

    /// The record that sends `payload`, with the remote's last known tag and, if `names`
    /// holds one, its writer's name.
    static func record(for payload: PendingChange.Payload, tag: String?, names: [String: String] = [:]) -> RemoteRecord {
        var fields: [String: FieldValue]
        let id: UUID
        switch payload {
        case let .save(idea, stamps):
            id = idea.id
            fields = [
                "id": .string(idea.id.lowercasedString),
                "title": .string(idea.title),
                "description": .string(idea.description),
                "isCompleted": .int64(idea.isCompleted ? 1 : 0),
                "createdAt": .timestamp(idea.createdAt),
                "updatedAt": .timestamp(idea.updatedAt),
                "deviceId": .string(idea.deviceId),
                "version": .int64(Int64(idea.version)),
                "isDeleted": .int64(0),
                "fieldStamps": .string(encode(stamps, recordDevice: idea.deviceId)),
            ]
        case let .delete(ideaId, order):
            id = ideaId
            fields = [
                "id": .string(ideaId.lowercasedString),
                "title": .string(""),
                "description": .string(""),
                "updatedAt": .timestamp(order.timestamp),
                "deviceId": .string(order.deviceId),
                "isDeleted": .int64(1),
            ]
        }
        if case .string(let writer)? = fields["deviceId"], let name = names[writer] {
            fields["deviceName"] = .string(writer + " " + name)
        }
        return RemoteRecord(
            recordType: recordType, recordID: recordID(id), fields: fields,
            changeTag: tag, creationDate: nil, modificationDate: nil)
    }

    /// The record id of an idea.
    static func recordID(_ id: UUID) -> RecordID {
        RecordID(recordName: id.lowercasedString, zoneID: zone)
    }

    /// The idea id a record stands for, if its name is one.
    static func ideaId(of recordID: RecordID) -> UUID? {
        UUID(hexText: recordID.recordName)
    }

    /// What a remote record says about its idea; nil for a record that isn't a valid idea
    /// (it is skipped and logged, never trusted).
    static func change(from record: RemoteRecord) -> RemoteChange? {
        guard record.recordType == recordType, let id = ideaId(of: record.recordID),
              case .timestamp(let updatedAt)? = record["updatedAt"], updatedAt.milliseconds <= latestTime,
              case .string(let deviceId)? = record["deviceId"], isDeviceId(deviceId)
        else { return nil }
        if case .int64(1)? = record["isDeleted"] {
            let order = SyncOrder(timestamp: updatedAt, deviceId: deviceId)
            return .deleted(ideaId: id, order: record.modificationDate.map { ArrivalRule.arrived(order, receivedAt: $0) } ?? order)
        }
        guard case .string(let title)? = record["title"],
              case .timestamp(let createdAt)? = record["createdAt"]
        else { return nil }
        let description: String = if case .string(let text)? = record["description"] { text } else { "" }
        let isCompleted: Bool = if case .int64(let flag)? = record["isCompleted"] { flag != 0 } else { false }
        let version: Int = if case .int64(let number)? = record["version"] { Int(number) } else { 0 }
        let idea = Idea(
            id: id, title: title, description: description, isCompleted: isCompleted,
            createdAt: createdAt, updatedAt: updatedAt, deviceId: deviceId, version: version)
        guard let valid = try? idea.validated() else { return nil }
        let text: String? = if case .string(let text)? = record["fieldStamps"] { text } else { nil }
        let stamps = stamps(text, of: valid)
        guard let receivedAt = record.modificationDate else { return .saved(valid, stamps) }
        let (arrived, arrivedStamps) = ArrivalRule.arrived(valid, stamps, receivedAt: receivedAt)
        return .saved(arrived, arrivedStamps)
    }

    /// The name `record`'s writer goes by, as of the record's time; nil when the record
    /// carries none, or one that is not its writer's or cannot be a name.
    static func naming(from record: RemoteRecord) -> DeviceNaming? {
        guard case .string(let writer)? = record["deviceId"], case .timestamp(let at)? = record["updatedAt"],
              case .string(let text)? = record["deviceName"]
        else { return nil }
        return naming(text, writer: writer, at: at)
    }

    /// The name `text` (a device id, a space, a name) gives `writer` as of `at`; nil when it
    /// names another device or cannot be a name.
    static func naming(_ text: String, writer: String, at: Timestamp) -> DeviceNaming? {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == writer, let name = DeviceNames.normalized(String(parts[1])) else { return nil }
        return DeviceNaming(deviceId: writer, name: name, namedAt: at)
    }

    /// The latest time a record may show: the end of the year 9999. A later one (only a
    /// broken or hostile record) would push this device's clock where no edit could follow.
    static let latestTime: Int64 = 253_402_300_799_999

    /// Whether `text` can be a device id here: 1 to 128 bytes of printable ASCII without
    /// spaces or `;`, so that `fieldStamps` always reads back what it wrote.
    static func isDeviceId(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }
    }

    /// `fieldStamps` as it travels: see the type's documentation.
    static func encode(_ stamps: FieldStamps, recordDevice: String) -> String {
        IdeaField.allCases.map { field in
            let order = stamps[field]
            let time = String(order.timestamp.milliseconds)
            return order.deviceId == recordDevice ? time : time + " " + order.deviceId
        }.joined(separator: ";")
    }

    /// The stamps `text` carries for `idea`, or every field stamped at its `updatedAt` when
    /// there is no text, it can't be read, or the record was written after it.
    static func stamps(_ text: String?, of idea: Idea) -> FieldStamps {
        guard let text, let stamps = parsedStamps(text, recordDevice: idea.deviceId) else { return FieldStamps(legacy: idea) }
        return stamps.checked(for: idea)
    }

    /// The stamps `text` carries, a stamp without a device id of its own written by
    /// `recordDevice`; nil when `text` can't be read.
    static func parsedStamps(_ text: String, recordDevice: String) -> FieldStamps? {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == IdeaField.allCases.count else { return nil }
        var orders: [SyncOrder] = []
        for part in parts {
            let pieces = part.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard let milliseconds = Int64(pieces[0]), milliseconds >= 0 else { return nil }
            let device = pieces.count == 2 ? String(pieces[1]) : recordDevice
            guard isDeviceId(device), milliseconds <= latestTime else { return nil }
            orders.append(SyncOrder(timestamp: Timestamp(milliseconds: milliseconds), deviceId: device))
        }
        return FieldStamps(title: orders[0], description: orders[1], isCompleted: orders[2])
    }
}
