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
/// Our field stamps travel beside the app's attributes, in `ideaboxFieldStamps` (`STRING`,
/// as `IdeaRecord`'s `fieldStamps`), a field the app does not read. An edit the app makes
/// leaves them behind, with its own `CD_updatedAt` and `CD_lastModifiedBy` later than all of
/// them: such a record reads as every field stamped at the app's `updatedAt` by the app's
/// device (`FieldStamps.checked(for:)`), which is what the app's last-write-wins means.
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

    /// The fields that carry `idea` (stamped `stamps`) as the app's model does.
    static func fields(for idea: Idea, stamps: FieldStamps) -> [String: FieldValue] {
        [
            entityNameField: .string(entityName),
            Attribute.id.field: .string(idea.id.uuidString),
            Attribute.title.field: .string(idea.title),
            Attribute.description.field: .string(idea.description),
            Attribute.isCompleted.field: .int64(idea.isCompleted ? 1 : 0),
            Attribute.createdAt.field: .timestamp(idea.createdAt),
            Attribute.updatedAt.field: .timestamp(idea.updatedAt),
            Attribute.lastModifiedBy.field: .string(idea.deviceId),
            stampsField: .string(IdeaRecord.encode(stamps, recordDevice: idea.deviceId)),
        ]
    }

    /// The record that saves `idea` under `recordName` (the app's name for a record it made;
    /// the idea's `uuidString` for one made here), with the remote's last known tag.
    static func record(for idea: Idea, stamps: FieldStamps, recordName: String, tag: String?) -> RemoteRecord {
        RemoteRecord(
            recordType: recordType, recordID: RecordID(recordName: recordName, zoneID: zone),
            fields: fields(for: idea, stamps: stamps), changeTag: tag, creationDate: nil, modificationDate: nil)
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
        guard let valid = try? idea.validated() else { return .notAnIdea }
        let stampsText: String? = if case .string(let value)? = record[stampsField] { value } else { nil }
        let stamps = IdeaRecord.stamps(stampsText, of: valid)
        guard let receivedAt = record.modificationDate else { return .idea(valid, stamps) }
        let (arrived, arrivedStamps) = ArrivalRule.arrived(valid, stamps, receivedAt: receivedAt)
        return .idea(arrived, arrivedStamps)
    }

    /// The writer of a record whose `lastModifiedBy` is missing or cannot be a device id here
    /// (the app writes `identifierForVendor`, or "unknown" without one).
    static let unknownWriter = "unknown"
}
