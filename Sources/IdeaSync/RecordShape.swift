import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// How ideas travel on the remote a session syncs with: as this product's `Idea` records
/// (`IdeaRecord`: `ideabox serve`, the embedded remote, a folder) or as the records the
/// IdeaBox app for iPhone and Mac writes in the person's iCloud (`CoreDataIdea`).
///
/// The two differ in three ways the session follows. Their zone and record type. A delete:
/// a record of ours (`isDeleted`), or the record's deletion (Core Data), which the remote
/// then reports by the record's name alone. And the record's name: ours is the idea's id;
/// the app names its records itself, so the store keeps each name read
/// (`IdeaRepository.rememberRecordNames`) and this device's saves and deletes go to it.
public enum RecordShape: Sendable, Equatable {
    /// `Idea` records in the zone `Ideas`.
    case ideabox
    /// The app's `CD_Idea` records in Core Data's zone.
    case coreData

    /// The zone the ideas live in.
    public var zone: RecordZoneID {
        switch self {
        case .ideabox: IdeaRecord.zone
        case .coreData: CoreDataIdea.zone
        }
    }

    /// The record type of ideas.
    public var recordType: String {
        switch self {
        case .ideabox: IdeaRecord.recordType
        case .coreData: CoreDataIdea.recordType
        }
    }

    /// What a record of the zone says.
    enum Reading: Sendable {
        /// A version of an idea, and the name its writer goes by.
        case change(RemoteChange, naming: DeviceNaming?)
        /// An idea whose text was moved into these assets, by field: read them first.
        case needsAssets([String: AssetReference])
        /// A record of the ideas' type that is no valid idea: skipped, and logged.
        case invalid
        /// A record another part of the app keeps there (Core Data's other entities, its
        /// `CDMR` records): left alone, quietly.
        case foreign
    }

    /// What `record` says; `assetTexts` holds the texts of the assets a `needsAssets`
    /// reading named.
    func read(_ record: RemoteRecord, assetTexts: [String: String] = [:]) -> Reading {
        switch self {
        case .ideabox:
            guard let change = IdeaRecord.change(from: record) else { return .invalid }
            return .change(change, naming: IdeaRecord.naming(from: record))
        case .coreData:
            switch CoreDataIdea.read(record, assetTexts: assetTexts) {
            case .idea(let idea, let stamps):
                return .change(.saved(idea, stamps), naming: CoreDataIdea.naming(from: record))
            case .needsAssets(let assets):
                return .needsAssets(assets)
            case .notAnIdea:
                let isIdea = record.recordType == CoreDataIdea.recordType
                    && record[CoreDataIdea.entityNameField].map { $0 == .string(CoreDataIdea.entityName) } ?? true
                return isIdea ? .invalid : .foreign
            }
        }
    }

    /// The name of the record that carries idea `id`: the remembered one, else ours.
    func recordName(of id: UUID, remembered: [UUID: String]) -> String {
        if let name = remembered[id] { return name }
        return switch self {
        case .ideabox: id.lowercasedString
        case .coreData: CoreDataIdea.recordName(forNew: id)
        }
    }

    /// The idea a record named `name` carries, for a record whose fields are not at hand (a
    /// deletion): the remembered one, else the idea whose id the name is (a record made here).
    func ideaId(ofRecordNamed name: String, remembered: [String: UUID]) -> UUID? {
        remembered[name] ?? UUID(hexText: name)
    }

    /// What a modify request sends for `changes`: the records saved and deleted, and the idea
    /// each record stands for. `names` holds the names of the writers, `recordNames` the
    /// remembered names of the ideas' records.
    func request(
        for changes: [PendingChange], names: [String: String], recordNames: [UUID: String]
    ) -> (saving: [RemoteRecord], deleting: [RecordID], ideas: [RecordID: UUID]) {
        var saving: [RemoteRecord] = []
        var deleting: [RecordID] = []
        var ideas: [RecordID: UUID] = [:]
        for change in changes {
            switch (self, change.payload) {
            case (.ideabox, _):
                let record = IdeaRecord.record(for: change.payload, tag: change.remoteTag, names: names)
                saving.append(record)
                ideas[record.recordID] = change.ideaId
            case let (.coreData, .save(idea, stamps)):
                let name = recordName(of: idea.id, remembered: recordNames)
                let record = CoreDataIdea.record(for: idea, stamps: stamps, recordName: name, tag: change.remoteTag, names: names)
                saving.append(record)
                ideas[record.recordID] = change.ideaId
            case (.coreData, .delete):
                let recordID = RecordID(recordName: recordName(of: change.ideaId, remembered: recordNames), zoneID: zone)
                deleting.append(recordID)
                ideas[recordID] = change.ideaId
            }
        }
        return (saving, deleting, ideas)
    }
}
