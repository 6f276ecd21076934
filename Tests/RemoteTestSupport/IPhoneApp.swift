import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation

/// The IdeaBox app for iPhone and Mac as its records show it: its SwiftData `Idea` (specs 003)
/// mirrored into CloudKit the way Core Data does it, written here from Apple's "Reading
/// CloudKit Records for Core Data" (`docs/icloud-digest.md` §2), not from the terminal's
/// mapping, so that the two check each other.
///
/// It writes a record with every attribute in the type Core Data gives it, and reads one
/// back strictly, as Core Data would import it: a missing attribute, an attribute of the
/// wrong type, or a `CD_entityName` that is not `Idea` on a `CD_Idea` is an error; a field
/// outside the model's `CD_` names is ignored; a record of another type is not its idea.
public enum IPhoneApp {
    /// The app's model.
    public struct Idea: Equatable, Sendable {
        public var id: UUID
        public var title: String
        public var description: String
        public var isCompleted: Bool
        public var createdAt: Date
        public var updatedAt: Date
        public var lastModifiedBy: String

        public init(
            id: UUID, title: String, description: String, isCompleted: Bool, createdAt: Date, updatedAt: Date,
            lastModifiedBy: String
        ) {
            self.id = id
            self.title = title
            self.description = description
            self.isCompleted = isCompleted
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.lastModifiedBy = lastModifiedBy
        }
    }

    /// Why a record could not be read as the app's idea.
    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static let zone = RecordZoneID(zoneName: "com.apple.coredata.cloudkit.zone")
    public static let recordType = "CD_Idea"

    /// The record the app saves for `idea` under `recordName`: every attribute set (a UUID
    /// as its `uuidString`, a Bool as `INT64` 0 or 1, a Date as a `TIMESTAMP`), the entity
    /// in `CD_entityName`, and the empty asset fields Core Data adds for each `String`
    /// attribute left out (they are null until a value outgrows the record).
    public static func record(_ idea: Idea, recordName: String, changeTag: String? = nil) -> RemoteRecord {
        RemoteRecord(
            recordType: recordType, recordID: RecordID(recordName: recordName, zoneID: zone),
            fields: [
                "CD_entityName": .string("Idea"),
                "CD_id": .string(idea.id.uuidString),
                "CD_title": .string(idea.title),
                "CD_description": .string(idea.description),
                "CD_isCompleted": .int64(idea.isCompleted ? 1 : 0),
                "CD_createdAt": .timestamp(Timestamp(idea.createdAt)),
                "CD_updatedAt": .timestamp(Timestamp(idea.updatedAt)),
                "CD_lastModifiedBy": .string(idea.lastModifiedBy),
            ],
            changeTag: changeTag, creationDate: nil, modificationDate: nil)
    }

    /// The app's idea in `record`; nil for a record of another type (not the app's idea,
    /// left alone). `assetTexts` holds the text of each `CD_<attribute>_ckAsset` whose field
    /// is empty, by asset field.
    public static func read(_ record: RemoteRecord, assetTexts: [String: String] = [:]) throws(ReadError) -> Idea? {
        guard record.recordType == recordType else { return nil }
        guard case .string("Idea")? = record["CD_entityName"] else {
            throw ReadError(description: "CD_entityName is \(String(describing: record["CD_entityName"])), not Idea")
        }
        func string(_ attribute: String) throws(ReadError) -> String {
            guard case .string(let value)? = record["CD_" + attribute] else {
                throw ReadError(description: "CD_\(attribute) is \(String(describing: record["CD_" + attribute])), not a STRING")
            }
            guard value.isEmpty, case .asset? = record["CD_\(attribute)_ckAsset"] else { return value }
            guard let moved = assetTexts["CD_\(attribute)_ckAsset"] else {
                throw ReadError(description: "CD_\(attribute) moved to an asset whose text was not given")
            }
            return moved
        }
        func date(_ attribute: String) throws(ReadError) -> Date {
            guard case .timestamp(let value)? = record["CD_" + attribute] else {
                throw ReadError(description: "CD_\(attribute) is \(String(describing: record["CD_" + attribute])), not a TIMESTAMP")
            }
            return value.date
        }
        guard let id = UUID(uuidString: try string("id")) else { throw ReadError(description: "CD_id is not a UUID") }
        guard case .int64(let flag)? = record["CD_isCompleted"], flag == 0 || flag == 1 else {
            throw ReadError(description: "CD_isCompleted is \(String(describing: record["CD_isCompleted"])), not an INT64 0 or 1")
        }
        return Idea(
            id: id, title: try string("title"), description: try string("description"), isCompleted: flag == 1,
            createdAt: try date("createdAt"), updatedAt: try date("updatedAt"), lastModifiedBy: try string("lastModifiedBy"))
    }

    /// A fixture of whole records as Web Services sends them (`Tests/Fixtures/CoreData/NAME.json`),
    /// read into records of `zone`.
    public static func fixture(_ name: String) throws -> RemoteRecord {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/CoreData/\(name).json")
        let json = try JSONValue(parsing: [UInt8](Data(contentsOf: url)))
        return try WebServicesFormat.record(json, zone: zone, at: name)
    }
}
