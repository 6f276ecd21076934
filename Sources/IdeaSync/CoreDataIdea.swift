import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// How an idea travels as the record the IdeaBox app for iPhone and Mac writes. The app keeps
/// its `Idea` model (specs 003: `id`, `title`, `description`, `isCompleted`, `createdAt`,
/// `updatedAt`, `lastModifiedBy`) with SwiftData, which mirrors it into the person's private
/// database as Core Data does (`docs/icloud-digest.md` §2): record type `CD_Idea` in the zone
/// `com.apple.coredata.cloudkit.zone`, each attribute in a field `CD_<attribute>`, the entity's
/// name in `CD_entityName`; a UUID as its `uuidString` (`STRING`), a Bool as `INT64` 0 or 1, a
/// Date as a `TIMESTAMP`; a string too long for the record moved into an asset
/// (`CD_<attribute>_ckAsset`, read when the field itself is empty). A delete is the record's
/// deletion, not a record of ours.
///
/// Our field stamps travel beside the app's attributes, in fields the app does not read:
/// `ideaboxFieldStamps` (`STRING`, as `IdeaRecord`'s `fieldStamps`, every stamp with its
/// device id) and `ideaboxFieldHashes` (`STRING`: a hash of each field's value as it was
/// stamped, title, description and done flag, separated by `;`). An edit the app makes leaves
/// them behind, with its own `CD_updatedAt` and `CD_lastModifiedBy`: a field whose value
/// still has the hash it was stamped with keeps its stamp, and a field the app changed is
/// stamped at the app's `updatedAt` by the app's device. So an edit of the title on the phone
/// and one of the description in the terminal, made apart, both survive, as they do between
/// two terminals. A record without them (the app made it) reads as every field stamped at the
/// app's `updatedAt`, which is what the app's last-write-wins means. The writer's name travels
/// in `ideaboxDeviceName` (as `IdeaRecord`'s `deviceName`).
///
/// Reading is lenient where the app may leave a value out (a missing description is empty,
/// a missing done flag false) and strict where a wrong value would be trusted: a record of
/// another entity, a field of the wrong type, an id that is not a UUID or an idea our rules
/// refuse is no idea (`Reading.notAnIdea`): left alone on the remote, never deleted.
enum CoreDataIdea {
    /// The record type every entity of the app's `Idea` hierarchy travels as.
    static let recordType = "CD_Idea"
    /// The entity's name, in `CD_entityName`.
    static let entityName = "Idea"
    /// The zone Core Data mirrors into.
    static let zone = RecordZoneID(zoneName: "com.apple.coredata.cloudkit.zone")
    /// The field the entity's name travels in.
    static let entityNameField = "CD_entityName"
    /// The field our stamps travel in: not a `CD_` name, which Core Data would take for one
    /// of its attributes.
    static let stampsField = "ideaboxFieldStamps"
    /// The field the hashes of the values stamped travel in.
    static let hashesField = "ideaboxFieldHashes"
    /// The field the writer's name travels in.
    static let deviceNameField = "ideaboxDeviceName"

    /// The attributes of the app's `Idea`, each in its field.
    enum Attribute: String, CaseIterable, Sendable {
        case id, title, description, isCompleted, createdAt, updatedAt, lastModifiedBy

        /// The field it travels in.
        var field: String { "CD_" + rawValue }

        /// The field a value too long for the record moves to, for the variable-length
        /// attributes (Core Data adds one for every `String`); nil for the others.
        var assetField: String? {
            switch self {
            case .id, .title, .description, .lastModifiedBy: field + "_ckAsset"
            case .isCompleted, .createdAt, .updatedAt: nil
            }
        }
    }

    /// What a record of the zone is to this device.
    enum Reading: Sendable, Equatable {
        /// An idea, its fields stamped so.
        case idea(Idea, FieldStamps)
        /// An idea whose text was moved into assets: their texts (`read(_:assetTexts:)`) are
        /// needed first, by field.
        case needsAssets([String: AssetReference])
        /// Not an idea (another entity, a broken record): left alone.
        case notAnIdea
    }

    /// The fields that carry `idea` (stamped `stamps`) as the app's model does, with its
    /// writer's name if `names` holds one.
    static func fields(for idea: Idea, stamps: FieldStamps, names: [String: String] = [:]) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [
            entityNameField: .string(entityName),
            Attribute.id.field: .string(idea.id.uuidString),
            Attribute.title.field: .string(idea.title),
            Attribute.description.field: .string(idea.description),
            Attribute.isCompleted.field: .int64(idea.isCompleted ? 1 : 0),
            Attribute.createdAt.field: .timestamp(idea.createdAt),
            Attribute.updatedAt.field: .timestamp(idea.updatedAt),
            Attribute.lastModifiedBy.field: .string(idea.deviceId),
            // Every stamp names its device: the record's writer changes when the app edits it.
            stampsField: .string(IdeaRecord.encode(stamps, recordDevice: "")),
            hashesField: .string(IdeaField.allCases.map { valueHash($0, of: idea) }.joined(separator: ";")),
        ]
        if let name = names[idea.deviceId] { fields[deviceNameField] = .string(idea.deviceId + " " + name) }
        return fields
    }

    /// The record that saves `idea` under `recordName` (the app's name for a record it made;
    /// the idea's `uuidString` for one made here), with the remote's last known tag.
    static func record(
        for idea: Idea, stamps: FieldStamps, recordName: String, tag: String?, names: [String: String] = [:]
    ) -> RemoteRecord {
        RemoteRecord(
            recordType: recordType, recordID: RecordID(recordName: recordName, zoneID: zone),
            fields: fields(for: idea, stamps: stamps, names: names), changeTag: tag, creationDate: nil, modificationDate: nil)
    }

    /// A hash of `field`'s value in `idea` (64-bit FNV-1a of its UTF-8, in hex): enough to
    /// tell whether the app changed a value since it was stamped. Not a secret: a client that
    /// forges one only misplaces the stamps of its own account's ideas.
    static func valueHash(_ field: IdeaField, of idea: Idea) -> String {
        let text = switch field {
        case .title: idea.title
        case .description: idea.description
        case .isCompleted: idea.isCompleted ? "1" : "0"
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Each field's stamp in `record`, whose values `idea` holds (its `updatedAt` and
    /// `deviceId` the record's `CD_updatedAt` and `CD_lastModifiedBy`): see the type.
    static func stamps(of idea: Idea, in record: RemoteRecord) -> FieldStamps {
        guard case .string(let stampsText)? = record[stampsField],
              let stamped = IdeaRecord.parsedStamps(stampsText, recordDevice: idea.deviceId),
              case .string(let hashesText)? = record[hashesField]
        else { return FieldStamps(legacy: idea) }
        let hashes = hashesText.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard hashes.count == IdeaField.allCases.count else { return FieldStamps(legacy: idea) }
        var stamps = FieldStamps(all: SyncOrder(idea))
        for (field, hash) in zip(IdeaField.allCases, hashes) where hash == valueHash(field, of: idea) {
            stamps[field] = stamped[field]
        }
        return stamps
    }

    /// The name `record`'s writer goes by, as of the record's time; nil when it carries none
    /// of its writer's.
    static func naming(from record: RemoteRecord) -> DeviceNaming? {
        guard case .string(let writer)? = record[Attribute.lastModifiedBy.field],
              case .timestamp(let at)? = record[Attribute.updatedAt.field],
              case .string(let text)? = record[deviceNameField]
        else { return nil }
        return IdeaRecord.naming(text, writer: writer, at: at)
    }

    /// The name of the record that carries an idea made on this device.
    static func recordName(forNew id: UUID) -> String {
        id.uuidString
    }

    /// The assets `record` moved its text into, by field; empty when its text is all in it.
    static func assetsNeeded(by record: RemoteRecord) -> [String: AssetReference] {
        var needed: [String: AssetReference] = [:]
        for attribute in Attribute.allCases {
            guard let assetField = attribute.assetField, case .asset(let reference)? = record[assetField] else { continue }
            switch record[attribute.field] {
            case nil, .string("")?: needed[assetField] = reference
            default: continue
            }
        }
        return needed
    }

    /// What `record` is to this device; `assetTexts` holds the text of each asset field
    /// `assetsNeeded(by:)` named (UTF-8, as a `String` attribute's value).
    static func read(_ record: RemoteRecord, assetTexts: [String: String] = [:]) -> Reading {
        guard record.recordType == recordType else { return .notAnIdea }
        switch record[entityNameField] {
        case nil, .string(entityName)?: break
        default: return .notAnIdea
        }
        let missing = assetsNeeded(by: record).filter { assetTexts[$0.key] == nil }
        guard missing.isEmpty else { return .needsAssets(missing) }

        func text(_ attribute: Attribute) -> String?? {
            if let assetField = attribute.assetField, let moved = assetTexts[assetField] { return .some(moved) }
            switch record[attribute.field] {
            case nil: return .some(nil)
            case .string(let value)?: return .some(value)
            default: return nil
            }
        }
        func time(_ attribute: Attribute) -> Timestamp?? {
            switch record[attribute.field] {
            case nil: .some(nil)
            case .timestamp(let value)?: value.milliseconds <= IdeaRecord.latestTime ? .some(value) : nil
            default: nil
            }
        }
        guard case .some(.some(let idText)) = text(.id), let id = UUID(uuidString: idText),
              case .some(.some(let title)) = text(.title),
              case .some(let description) = text(.description),
              case .some(let writer) = text(.lastModifiedBy),
              case .some(let updated) = time(.updatedAt), case .some(let created) = time(.createdAt),
              let updatedAt = updated ?? record.modificationDate
        else { return .notAnIdea }
        let isCompleted: Bool
        switch record[Attribute.isCompleted.field] {
        case nil: isCompleted = false
        case .int64(let flag)?: isCompleted = flag != 0
        default: return .notAnIdea
        }
        let deviceId = writer.flatMap { IdeaRecord.isDeviceId($0) ? $0 : nil } ?? unknownWriter
        let idea = Idea(
            id: id, title: title, description: description ?? "", isCompleted: isCompleted,
            createdAt: min(created ?? updatedAt, updatedAt), updatedAt: updatedAt, deviceId: deviceId, version: 0)
        guard var valid = try? idea.validated() else { return .notAnIdea }
        let stamps = stamps(of: valid, in: record)
        // The idea's own place is its latest stamp, as on every device.
        valid.updatedAt = max(stamps.latest.timestamp, valid.createdAt)
        valid.deviceId = stamps.latest.deviceId
        guard let receivedAt = record.modificationDate else { return .idea(valid, stamps) }
        let (arrived, arrivedStamps) = ArrivalRule.arrived(valid, stamps, receivedAt: receivedAt)
        return .idea(arrived, arrivedStamps)
    }

    /// The writer of a record whose `lastModifiedBy` is missing or cannot be a device id here
    /// (the app writes `identifierForVendor`, or "unknown" without one).
    static let unknownWriter = "unknown"
}
