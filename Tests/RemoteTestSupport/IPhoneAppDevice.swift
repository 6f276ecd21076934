import CloudKitModel
import Foundation

/// The iPhone app on one device, through a remote: it saves, edits and deletes its ideas as
/// `CD_Idea` records (`IPhoneApp`) and reads back every idea of Core Data's zone as the app
/// would. An edit changes only the app's own fields of the record it fetched, as Core Data's
/// export does with a `CKRecord`: fields the app does not know stay as they were. A delete is
/// the record's deletion. The app names the records it makes with a UUID of its own, not its
/// idea's `id` (Core Data's naming is not documented: only that the id travels as `CD_id`).
public struct IPhoneAppDevice: Sendable {
    private let database: any CloudDatabase
    /// What the app writes as `lastModifiedBy`: its `identifierForVendor`.
    public let deviceId: String

    public init(database: any CloudDatabase, deviceId: String = UUID().uuidString) {
        self.database = database
        self.deviceId = deviceId
    }

    /// Makes Core Data's zone, as the app's first export does.
    public func prepare() async throws {
        try await database.createZone(IPhoneApp.zone)
    }

    /// Saves `idea` as written on this device (its `lastModifiedBy` this device's): a new
    /// record, or an edit of the one named `recordName`. Returns the record's name.
    @discardableResult
    public func save(_ idea: IPhoneApp.Idea, recordName: String? = nil) async throws -> String {
        var idea = idea
        idea.lastModifiedBy = deviceId
        let name = recordName ?? UUID().uuidString
        let fresh = IPhoneApp.record(idea, recordName: name)
        var saving = fresh
        if recordName != nil, let current = try await record(named: name) {
            saving = current
            saving.fields.merge(fresh.fields) { _, new in new }
        }
        let result = try await database.modify(saving: [saving], deleting: [], savePolicy: .ifServerRecordUnchanged)
        if let failure = result.failures.values.first { throw failure }
        return name
    }

    /// Deletes the record named `recordName`.
    public func delete(recordName: String) async throws {
        let result = try await database.modify(
            saving: [], deleting: [RecordID(recordName: recordName, zoneID: IPhoneApp.zone)], savePolicy: .allKeys)
        if let failure = result.failures.values.first { throw failure }
    }

    /// Every idea of the zone as the app reads it, by record name; a record of the app's type
    /// it cannot read throws (`IPhoneApp.ReadError`), as a failed import would.
    public func ideas() async throws -> [String: IPhoneApp.Idea] {
        var ideas: [String: IPhoneApp.Idea] = [:]
        for record in try await database.records(in: IPhoneApp.zone, ofType: IPhoneApp.recordType) {
            var texts: [String: String] = [:]
            for (field, value) in record.fields {
                guard field.hasSuffix("_ckAsset"), case .asset(let reference) = value else { continue }
                texts[field] = String(decoding: try await database.fetchAsset(reference), as: UTF8.self)
            }
            if let idea = try IPhoneApp.read(record, assetTexts: texts) { ideas[record.recordID.recordName] = idea }
        }
        return ideas
    }

    /// The record named `name`, as the remote has it now.
    public func record(named name: String) async throws -> RemoteRecord? {
        try await database.records(in: IPhoneApp.zone, ofType: IPhoneApp.recordType).first { $0.recordID.recordName == name }
    }
}
