import CloudKitModel
import Foundation

/// Rewrites every record of an account's zones on the remote, for turning encryption on
/// (every record sealed under the current key, its plain version replaced and its assets
/// sealed) and off (every record back to plain). It reads and writes generic records, so it
/// knows no idea: the zones and their record types are given.
///
/// Each record is replaced whole (a merge would keep the plain fields of a record sealed for
/// the first time), over its change tag: a save another device made between this rewriter's
/// read and its write is never overwritten, the record is read and rewritten again. In a
/// hidden-name zone the record under its other name is deleted, so no plain copy is left
/// behind. A record that does not open is reported and left as it is. Rotation and reset use
/// `sealEverything` too: it rewrites every record not sealed with the current key.
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
    public func sealEverything(_ zones: [Zone]) async throws -> Int {
        let sealer = sealed.sealer
        var count = 0
        for zone in zones {
            count += try await rewrite(zone, through: sealed) { record in
                var plain: RemoteRecord
                if record.fields[RecordSealer.sealedField] != nil {
                    guard sealer.keyID(of: record) != sealer.keyring.current.id,
                          let openedRecord = try await opened(record, assetsThrough: sealed) else { return nil }
                    plain = openedRecord
                } else {
                    plain = record
                    plain.fields = try await Self.mapAssets(plain.fields) { try await sealed.uploadAsset(try await raw.fetchAsset($0)) }
                }
                return sealer.remoteRecordID(for: plain.recordID) == record.recordID ? plain : Self.renamed(plain)
            } stale: { record, saved in
                sealer.remoteRecordID(for: saved.recordID) != record.recordID
            }
        }
        return count
    }

    /// `record` opened, its assets opened and uploaded again through `target` (sealed again
    /// by a sealed remote, plain by the raw one); nil, reported, if it does not open.
    private func opened(_ record: RemoteRecord, assetsThrough target: any CloudDatabase) async throws -> RemoteRecord? {
        let sealer = sealed.sealer
        var plain: RemoteRecord
        do {
            plain = try sealer.open(record)
        } catch {
            report(error)
            return nil
        }
        plain.fields = try await Self.mapAssets(plain.fields) { reference in
            try await target.uploadAsset(try sealer.openAsset(try await raw.fetchAsset(reference), reference: reference))
        }
        return plain
    }

    /// Opens every sealed record of `zones` and stores it plain; returns how many.
    @discardableResult
    public func openEverything(_ zones: [Zone]) async throws -> Int {
        // Plain saves go through the remote that replaces a record whole, like sealed ones:
        // a merge would keep the sealed value beside the plain fields.
        let plainTarget = sealed.base
        var count = 0
        for zone in zones {
            count += try await rewrite(zone, through: plainTarget) { record in
                guard record.fields[RecordSealer.sealedField] != nil, let plain = try await opened(record, assetsThrough: raw) else { return nil }
                return plain.recordID == record.recordID ? plain : Self.renamed(plain)
            } stale: { record, saved in
                saved.recordID != record.recordID
            }
        }
        return count
    }

    // MARK: Inside

    /// The most times a record is read and written again after another device changed it
    /// between this rewriter's read and its save.
    public static let maximumRounds = 16

    /// Rewrites the records of `zone` that `prepare` turns into a record to save (nil: left
    /// as it is), saving through `target` in batches over each record's change tag, so that
    /// a save from another device between the read and the write is never overwritten: a
    /// record that changed meanwhile is read again and prepared again, up to `maximumRounds`
    /// times. A record saved under another name (`stale`) has its old copy deleted once the
    /// new one is saved, or once another device's copy under the new name is found there
    /// (it was written after this rewriter's read, so it is the newer). Returns how many
    /// records were saved.
    private func rewrite(
        _ zone: Zone, through target: any CloudDatabase, prepare: (RemoteRecord) async throws -> RemoteRecord?,
        stale isStale: (_ record: RemoteRecord, _ saved: RemoteRecord) -> Bool
    ) async throws -> Int {
        var wanted: Set<RecordID>?
        var count = 0
        for _ in 0..<Self.maximumRounds {
            var work: [(save: RemoteRecord, raw: RecordID, stale: Bool)] = []
            for record in try await listing(zone) where wanted?.contains(record.recordID) ?? true {
                guard let save = try await prepare(record) else { continue }
                work.append((save, record.recordID, isStale(record, save)))
            }
            var changedMeanwhile: Set<RecordID> = []
            var staleIDs: [RecordID] = []
            let size = max(1, target.maximumRecordsPerRequest)
            for start in stride(from: 0, to: work.count, by: size) {
                let batch = work[start..<min(start + size, work.count)]
                let result = try await target.modify(saving: batch.map(\.save), deleting: [], savePolicy: .ifServerRecordUnchanged)
                try await retype(result.saved, as: batch.map(\.save), through: target)
                for item in batch {
                    switch result.failures[item.save.recordID] {
                    case nil:
                        count += 1
                        if item.stale { staleIDs.append(item.raw) }
                    case .serverRecordChanged?:
                        if item.stale { staleIDs.append(item.raw) } else { changedMeanwhile.insert(item.raw) }
                    case .unknownItem?:
                        continue  // deleted meanwhile: nothing to rewrite
                    case let failure?:
                        throw failure
                    }
                }
            }
            try await delete(staleIDs)
            if changedMeanwhile.isEmpty { return count }
            wanted = changedMeanwhile
        }
        throw CloudError.serverRecordChanged(serverRecord: nil)
    }

    /// The remote keeps a record's type across saves: each of `saved` that kept its former
    /// type (a sealed record saved plain under its own name) is deleted and saved anew under
    /// the type it was sent with, in one request. (`SealedDatabase` does the same for
    /// records it seals, so its answers never need it.)
    private func retype(_ saved: [RemoteRecord], as sent: [RemoteRecord], through target: any CloudDatabase) async throws {
        let sentTypes = Dictionary(sent.map { ($0.recordID, $0) }, uniquingKeysWith: { first, _ in first })
        let again = saved.compactMap { record -> RemoteRecord? in
            guard var fresh = sentTypes[record.recordID], fresh.recordType != record.recordType else { return nil }
            fresh.changeTag = nil
            return fresh
        }
        guard !again.isEmpty else { return }
        let size = max(1, target.maximumRecordsPerRequest / 2)
        for start in stride(from: 0, to: again.count, by: size) {
            let batch = Array(again[start..<min(start + size, again.count)])
            let result = try await target.modify(saving: batch, deleting: batch.map(\.recordID), savePolicy: .allKeys)
            if let failure = result.failures.values.first { throw failure }
        }
    }

    /// `record` to be saved under a new name: created there, so it carries no change tag.
    private static func renamed(_ record: RemoteRecord) -> RemoteRecord {
        var record = record
        record.changeTag = nil
        return record
    }

    /// Every record of `zone`: the plain ones, and the sealed ones (`RecordSealer.sealedType`).
    func listing(_ zone: Zone) async throws -> [RemoteRecord] {
        do {
            return try await raw.records(in: zone.zone, ofType: zone.recordType)
                + raw.records(in: zone.zone, ofType: RecordSealer.sealedType(of: zone.recordType))
        } catch CloudError.zoneNotFound {
            return []
        }
    }

    func delete(_ recordIDs: [RecordID]) async throws {
        let size = max(1, raw.maximumRecordsPerRequest)
        for start in stride(from: 0, to: recordIDs.count, by: size) {
            let result = try await raw.modify(saving: [], deleting: Array(recordIDs[start..<min(start + size, recordIDs.count)]), savePolicy: .allKeys)
            if let failure = result.failures.values.first(where: { $0 != .unknownItem }) { throw failure }
        }
    }

    /// `fields` with every asset reference replaced by `transform`'s.
    static func mapAssets(
        _ fields: [String: FieldValue], _ transform: (AssetReference) async throws -> AssetReference
    ) async throws -> [String: FieldValue] {
        func map(_ value: FieldValue) async throws -> FieldValue {
            switch value {
            case .asset(let reference):
                return .asset(try await transform(reference))
            case .list(let values):
                var mapped: [FieldValue] = []
                for value in values { mapped.append(try await map(value)) }
                return .list(mapped)
            default:
                return value
            }
        }
        var mapped: [String: FieldValue] = [:]
        for (name, value) in fields { mapped[name] = try await map(value) }
        return mapped
    }
}
