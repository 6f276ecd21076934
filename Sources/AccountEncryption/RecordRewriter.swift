import CloudKitModel
import Foundation

/// Rewrites every record of an account's zones on the remote, for turning encryption on
/// (every record sealed under the current key, its plain version replaced and its assets
/// sealed) and off (every record back to plain). It reads and writes generic records, so it
/// knows no idea: the zones and their record types are given.
///
/// Each record is replaced whole (`allKeys`, sent as `forceReplace`): a merge would keep
/// the plain fields of a record sealed for the first time. In a hidden-name zone the record
/// under its other name is deleted, so no plain copy is left behind. A record that does not
/// open is reported and left as it is.
public struct RecordRewriter: Sendable {
    /// A zone and the type of its records.
    public struct Zone: Hashable, Sendable {
        /// The zone.
        public var zone: RecordZoneID
        /// Its records' type.
        public var recordType: String

        /// `zone`, holding records of `recordType`.
        public init(_ zone: RecordZoneID, recordType: String) {
            self.zone = zone
            self.recordType = recordType
        }
    }

    /// The remote itself.
    public let raw: any CloudDatabase
    /// The sealed view of `raw`.
    public let sealed: SealedDatabase
    private let report: @Sendable (OpenFailure) -> Void

    /// A rewriter of `raw`'s records through `sealed` (which must seal onto `raw`).
    public init(raw: any CloudDatabase, sealed: SealedDatabase, report: @escaping @Sendable (OpenFailure) -> Void = { _ in }) {
        self.raw = raw
        self.sealed = sealed
        self.report = report
    }

    /// Seals every record of `zones` not yet sealed with the current key; returns how many.
    @discardableResult
    public func sealEverything(_ zones: [Zone]) throws -> Int {
        let sealer = sealed.sealer
        var count = 0
        for zone in zones {
            var saves: [RemoteRecord] = []
            var stale: [RecordID] = []
            for record in try listing(zone) {
                var plain: RemoteRecord
                if record.fields[RecordSealer.sealedField] != nil {
                    guard sealer.keyID(of: record) != sealer.keyring.current.id,
                          let openedRecord = try opened(record, assetsThrough: sealed) else { continue }
                    plain = openedRecord
                } else {
                    plain = record
                    plain.fields = try Self.mapAssets(plain.fields) { try sealed.uploadAsset(try raw.fetchAsset($0)) }
                }
                if sealer.remoteRecordID(for: plain.recordID) != record.recordID { stale.append(record.recordID) }
                saves.append(plain)
            }
            try save(saves, through: sealed)
            try delete(stale)
            count += saves.count
        }
        return count
    }

    /// `record` opened, its assets opened and uploaded again through `target` (sealed again
    /// by a sealed remote, plain by the raw one); nil, reported, if it does not open.
    private func opened(_ record: RemoteRecord, assetsThrough target: any CloudDatabase) throws -> RemoteRecord? {
        let sealer = sealed.sealer
        var plain: RemoteRecord
        do {
            plain = try sealer.open(record)
        } catch {
            report(error)
            return nil
        }
        plain.fields = try Self.mapAssets(plain.fields) { reference in
            try target.uploadAsset(try sealer.openAsset(try raw.fetchAsset(reference), reference: reference))
        }
        return plain
    }

    /// Opens every sealed record of `zones` and stores it plain; returns how many.
    @discardableResult
    public func openEverything(_ zones: [Zone]) throws -> Int {
        let sealer = sealed.sealer
        var count = 0
        for zone in zones {
            var saves: [RemoteRecord] = []
            var stale: [RecordID] = []
            // The remote keeps a record's type across saves: one plain again under its own
            // name is deleted and saved anew, in one request, to take its plain type back.
            var retyped: Set<RecordID> = []
            for record in try listing(zone) where record.fields[RecordSealer.sealedField] != nil {
                guard let plain = try opened(record, assetsThrough: raw) else { continue }
                if plain.recordID != record.recordID { stale.append(record.recordID) } else { retyped.insert(record.recordID) }
                saves.append(plain)
            }
            try save(saves, through: raw, replacing: retyped)
            try delete(stale)
            count += saves.count
        }
        return count
    }

    // MARK: Inside

    /// Every record of `zone`: the plain ones, and the sealed ones (`RecordSealer.sealedType`).
    private func listing(_ zone: Zone) throws -> [RemoteRecord] {
        do {
            return try raw.records(in: zone.zone, ofType: zone.recordType)
                + raw.records(in: zone.zone, ofType: RecordSealer.sealedType(of: zone.recordType))
        } catch CloudError.zoneNotFound {
            return []
        }
    }

    /// Saves `records` through `database`, each of `replacing` deleted first in the same request.
    private func save(_ records: [RemoteRecord], through database: any CloudDatabase, replacing: Set<RecordID> = []) throws {
        let size = max(1, replacing.isEmpty ? database.maximumRecordsPerRequest : database.maximumRecordsPerRequest / 2)
        for start in stride(from: 0, to: records.count, by: size) {
            let batch = Array(records[start..<min(start + size, records.count)])
            let result = try database.modify(
                saving: batch, deleting: batch.map(\.recordID).filter(replacing.contains), savePolicy: .allKeys)
            if let failure = result.failures.values.first { throw failure }
        }
    }

    private func delete(_ recordIDs: [RecordID]) throws {
        let size = max(1, raw.maximumRecordsPerRequest)
        for start in stride(from: 0, to: recordIDs.count, by: size) {
            let result = try raw.modify(saving: [], deleting: Array(recordIDs[start..<min(start + size, recordIDs.count)]), savePolicy: .allKeys)
            if let failure = result.failures.values.first(where: { $0 != .unknownItem }) { throw failure }
        }
    }

    /// `fields` with every asset reference replaced by `transform`'s.
    static func mapAssets(
        _ fields: [String: FieldValue], _ transform: (AssetReference) throws -> AssetReference
    ) throws -> [String: FieldValue] {
        func map(_ value: FieldValue) throws -> FieldValue {
            switch value {
            case .asset(let reference): .asset(try transform(reference))
            case .list(let values): .list(try values.map(map))
            default: value
            }
        }
        return try fields.mapValues(map)
    }
}
