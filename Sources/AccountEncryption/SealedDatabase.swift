import CloudKitModel
import Foundation

/// A `CloudDatabase` that seals everything it sends and opens everything it receives, around
/// any other (the embedded remote, the HTTP client, a fault injector): the layers above see
/// plain records and never know; the remote below sees only sealed ones.
///
/// - `modify` seals every save with the current key (tombstones are saves, so they are sealed
///   alike) under its remote id (hidden in hidden-name zones), and deletes by remote id;
///   its answer speaks of plain ids again, and a conflict's server record is opened.
/// - `fetchChanges` and `records(in:ofType:)` open every record; one that does not open
///   (not sealed, unknown key, altered, swapped, moved) is left out and reported through
///   `report`, one line naming it, and the others go on. Deletions in hidden-name zones map
///   back to plain names through `names`; one it cannot map is passed on under its hidden
///   name (which matches no plain record). A plain record's deletion there is left out: its
///   name is a plain name, and the plain copy that turning encryption on replaced by a sealed
///   one under a hidden name (`RecordRewriter`) would otherwise read as the deletion of the
///   record this view still serves (a library file deleted on every device). This view never
///   serves a plain record, so it has none to delete.
/// - Assets are sealed before upload and opened after download; one that does not open is
///   reported and fetched as `unknownItem`.
/// - The envelope's zone (`EnvelopeRecord.zone`) passes through as it is.
public struct SealedDatabase: CloudDatabase {
    /// The remote below.
    public let base: any CloudDatabase
    /// The keys and the container.
    public let sealer: RecordSealer
    /// The plain names behind hidden ones.
    public let names: RecordNameBook
    private let report: @Sendable (OpenFailure) -> Void

    /// A sealed view of `base`; every record or asset refused is passed to `report`.
    public init(
        base: any CloudDatabase, sealer: RecordSealer, names: RecordNameBook = RecordNameBook(),
        report: @escaping @Sendable (OpenFailure) -> Void
    ) {
        self.base = base
        self.sealer = sealer
        self.names = names
        self.report = report
    }

    /// Tells the name book the plain names this device already knows in `zone` (the records
    /// it synced before this run), so that their deletions map back.
    public func rememberPlainNames(_ plainNames: some Sequence<String>, in zone: RecordZoneID) {
        guard sealer.hiddenNameZones.contains(zone) else { return }
        for name in plainNames {
            names.remember(name, as: sealer.remoteRecordID(for: RecordID(recordName: name, zoneID: zone)))
        }
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    public func accountStatus() async throws -> AccountStatus { try await base.accountStatus() }

    public func createZone(_ zone: RecordZoneID) async throws { try await base.createZone(zone) }

    public func deleteZone(_ zone: RecordZoneID) async throws { try await base.deleteZone(zone) }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        var plainByRemote: [RecordID: RemoteRecord] = [:]
        var sealedByRemote: [RecordID: RemoteRecord] = [:]
        var plainIDs: [RecordID: RecordID] = [:]
        let sealed = records.map { record -> RemoteRecord in
            guard !passesThrough(record.recordID.zoneID) else { return record }
            let sealed = sealer.seal(record)
            plainByRemote[sealed.recordID] = record
            sealedByRemote[sealed.recordID] = sealed
            plainIDs[sealed.recordID] = record.recordID
            learn(record.recordID, remote: sealed.recordID)
            return sealed
        }
        let deletions = recordIDs.map { id -> RecordID in
            guard !passesThrough(id.zoneID) else { return id }
            let remote = sealer.remoteRecordID(for: id)
            plainIDs[remote] = id
            return remote
        }
        var result = try await base.modify(saving: sealed, deleting: deletions, savePolicy: savePolicy)
        // The remote keeps a record's type across saves: a plain record saved sealed (the
        // first seal of an idea, or one an older device wrote) kept its plain type, which no
        // device would open. It is replaced whole under the sealed type: deleted and saved
        // again in one request.
        let retyped = result.saved.filter { saved in
            sealedByRemote[saved.recordID].map { $0.recordType != saved.recordType } ?? false
        }
        if !retyped.isEmpty {
            let ids = retyped.map(\.recordID)
            let again = try await base.modify(
                saving: ids.compactMap { sealedByRemote[$0] }.map { record in
                    var fresh = record
                    fresh.changeTag = nil
                    return fresh
                },
                deleting: ids, savePolicy: .allKeys)
            let replaced = Set(again.saved.map(\.recordID))
            result.saved = result.saved.filter { !replaced.contains($0.recordID) } + again.saved
            result.failures.merge(again.failures) { first, _ in first }
        }
        return ModifyResult(
            saved: result.saved.map { saved in
                // The server's copy is what was sent, with its tag and times: no need to open it.
                guard var plain = plainByRemote[saved.recordID] else { return saved }
                plain.changeTag = saved.changeTag
                plain.creationDate = saved.creationDate
                plain.modificationDate = saved.modificationDate
                return plain
            },
            deleted: result.deleted.map { plainIDs[$0] ?? $0 },
            failures: Dictionary(
                result.failures.map { (plainIDs[$0.key] ?? $0.key, opened($0.value)) }, uniquingKeysWith: { first, _ in first }))
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        let (changes, heldBack) = try await fetchChangesHoldingBack(in: zone, since: token, resultsLimit: resultsLimit)
        heldBack.forEach(report)
        return changes
    }

    /// The changes of `zone` after `token`, opened, and apart the refusals of records sealed
    /// under a key this device does not hold or not sealed at all (not yet reported: the
    /// caller may learn the key, or that encryption was turned off, and fetch again). Tokens
    /// are `SealedChangeToken`s of the current key: one read under another state throws
    /// `changeTokenExpired`.
    func fetchChangesHoldingBack(
        in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int
    ) async throws -> (changes: ZoneChanges, heldBack: [OpenFailure]) {
        guard !passesThrough(zone) else { return (try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit), []) }
        let key = sealer.keyring.current.id
        let changes = try await base.fetchChanges(
            in: zone, since: try token.map { try SealedChangeToken.unwrap($0, key: key) }, resultsLimit: resultsLimit)
        var heldBack: [OpenFailure] = []
        let opened = changes.changed.compactMap { record -> RemoteRecord? in
            do throws(OpenFailure) {
                let plain = try sealer.open(record)
                learn(plain.recordID, remote: record.recordID)
                return plain
            } catch {
                switch error.reason {
                case .unknownKey, .notSealed: heldBack.append(error)
                default: report(error)
                }
                return nil
            }
        }
        let plainChanges = ZoneChanges(
            changed: opened,
            deleted: changes.deleted.compactMap { deleted in
                let prefix = RecordSealer.sealedTypePrefix
                let wasSealed = deleted.recordType.hasPrefix(prefix)
                let type = wasSealed ? String(deleted.recordType.dropFirst(prefix.count)) : deleted.recordType
                guard sealer.hiddenNameZones.contains(zone) else { return DeletedRecord(recordID: deleted.recordID, recordType: type) }
                guard wasSealed else { return nil }
                guard let name = names.plainName(of: deleted.recordID) else {
                    return DeletedRecord(recordID: deleted.recordID, recordType: type)
                }
                return DeletedRecord(recordID: RecordID(recordName: name, zoneID: zone), recordType: type)
            },
            token: SealedChangeToken.wrap(changes.token, key: key), moreComing: changes.moreComing)
        return (plainChanges, heldBack)
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        guard !passesThrough(zone) else { return try await base.records(in: zone, ofType: recordType) }
        return try await base.records(in: zone, ofType: RecordSealer.sealedType(of: recordType)).compactMap(open)
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference {
        try await base.uploadAsset(sealer.sealAsset(data))
    }

    public func fetchAsset(_ reference: AssetReference) async throws -> Data {
        let blob = try await base.fetchAsset(reference)
        do {
            return try sealer.openAsset(blob, reference: reference)
        } catch {
            report(error)
            throw CloudError.unknownItem
        }
    }

    // MARK: Inside

    private func passesThrough(_ zone: RecordZoneID) -> Bool {
        zone == EnvelopeRecord.zone
    }

    private func learn(_ plainID: RecordID, remote: RecordID) {
        if sealer.hiddenNameZones.contains(plainID.zoneID) { names.remember(plainID.recordName, as: remote) }
    }

    /// The plain record, or nil (reported) if it does not open.
    private func open(_ record: RemoteRecord) -> RemoteRecord? {
        do {
            let plain = try sealer.open(record)
            learn(plain.recordID, remote: record.recordID)
            return plain
        } catch {
            report(error)
            return nil
        }
    }

    /// A failure with its server record opened; a server record that does not open is
    /// reported and dropped, leaving the conflict without one.
    private func opened(_ error: CloudError) -> CloudError {
        guard case .serverRecordChanged(let server?) = error, !passesThrough(server.recordID.zoneID) else { return error }
        return .serverRecordChanged(serverRecord: open(server))
    }
}
