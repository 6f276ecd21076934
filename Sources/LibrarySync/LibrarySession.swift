import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// One sync of a library folder with the `RawLibraryZone` of a remote, as the RawLibrary
/// spec describes it: pull the zone's changes since the manifest's token, then push what
/// changed in the folder since the manifest was written. Conflicts go to the later write
/// (the file's modification time against the record's modification date); the loser is
/// kept in `.conflicts/` beside the file. The remote learns nothing of files: it stores
/// `RawLibraryFile` records with the fields `filename`, `path` and `filedata`.
///
/// Asynchronous, like `SyncSession`; errors that stop the sync are thrown as `CloudError`
/// or `LibraryError`, and the manifest keeps every step that finished.
public final class LibrarySession: @unchecked Sendable {
    /// The zone and record type of the spec.
    public static let zone = RecordZoneID(zoneName: "RawLibraryZone")
    public static let recordType = "RawLibraryFile"
    /// The most bytes a record holds (CloudKit's limit, 1 MB): a file whose record would be
    /// larger goes as an asset, uploaded on its own and named by `filedata`.
    public static let maximumRecordBytes = 1 << 20
    /// Room kept below the remote's limits for a record's or a file's seal when the account
    /// is encrypted: a sealed library record is 132 bytes larger than its plain fields (the
    /// sealed payload's framing, the seal's format, key id, nonce and tag, the field's name),
    /// a sealed asset 37 bytes larger than the file. A file at either limit plain must fit sealed.
    public static let sealingMargin = 1024
    /// The largest file synced: an asset's limit, less the room for its seal.
    public static let maximumFileBytes = AssetReference.maximumSize - sealingMargin
    /// The most bytes of file data in one modify request (its JSON must stay under the server's 8 MiB).
    static let maximumRequestBytes = 4 << 20
    /// The most bytes of files held in memory for one batch of saves, assets included.
    static let maximumBatchBytes = 64 << 20
    static let batchLimit = 100
    static let pageLimit = 200

    public let folder: LibraryFolder
    let database: any CloudDatabase
    private let clock: WallClock
    private let account: @Sendable () -> String?
    private let log: @Sendable (LibraryLogKind, String) -> Void

    /// A session for the folder at `root` and `database`; `account` names the account (and
    /// server) `database` reaches as of each sync, nil if unknown; `log` receives every line
    /// worth a person's attention (refusals, conflicts, deletes kept).
    public init(
        root: URL, database: any CloudDatabase, clock: WallClock,
        log: @escaping @Sendable (LibraryLogKind, String) -> Void = { _, _ in }, account: @escaping @Sendable () -> String? = { nil }
    ) {
        folder = LibraryFolder(root: root)
        self.database = database
        self.clock = clock
        self.account = account
        self.log = log
    }

    /// The manifest, started afresh if it was synced with another account than the one
    /// signed in to now: its files and change token say nothing of this account's, and
    /// trusted, the files synced before would never reach it. Afresh, every file here is new
    /// to the account and merges with its files (a conflict keeps both), and nothing is deleted.
    func loadManifest() throws -> LibraryManifest {
        var manifest = try LibraryManifest.load(from: folder.root)
        guard let account = account(), manifest.account != account else { return manifest }
        if let earlier = manifest.account {
            log(.info, "library: synced with \(earlier) before, now with \(account): every file here is sent to it")
            manifest = LibraryManifest()
        }
        manifest.account = account
        return manifest
    }

    /// Pulls, then pushes; records the outcome in the manifest either way.
    @discardableResult
    public func sync() async throws -> LibraryReport {
        try folder.createRootIfMissing()
        folder.removeStaleTemporaryFiles(now: clock.now())
        var manifest = try loadManifest()
        var report = LibraryReport()
        do {
            if manifest.changeTokenData == nil { try await database.createZone(Self.zone) }
            var serverTags: [LibraryPath: String] = [:]
            try await pull(&manifest, &report, serverTags: &serverTags)
            try await push(&manifest, &report, serverTags: serverTags)
            // A sync that found nothing to do (the engine runs one every second) leaves the
            // manifest alone unless its last sync time is a minute old.
            let now = clock.now()
            let unchanged = report == LibraryReport() && manifest.lastError == nil
                && manifest.lastSyncAt.map { now.milliseconds - $0.milliseconds < 60_000 } == true
            manifest.lastSyncAt = now
            manifest.lastError = nil
            if !unchanged { try save(&manifest) }
            if report.uploaded + report.deletedRemotely + report.downloaded + report.deletedLocally > 0 {
                log(.info, "library: \(report.uploaded) file(s) sent, \(report.deletedRemotely) deleted remotely, "
                    + "\(report.downloaded) received, \(report.deletedLocally) deleted here")
            }
        } catch {
            manifest.lastError = "\(error)"
            try? save(&manifest)
            throw error
        }
        return report
    }

    /// Makes the remote hold exactly the folder's files: deletes every `RawLibraryFile` the
    /// folder lacks and saves every file over whatever the remote has. Other devices then
    /// converge to it on their next sync.
    @discardableResult
    public func overwriteRemote() async throws -> LibraryReport {
        try folder.createRootIfMissing()
        var manifest = try loadManifest()
        var report = LibraryReport()
        do {
            try await database.createZone(Self.zone)
            let scan = try scanAndReport(&manifest, &report)
            let local = Set(scan.files.keys.map(\.recordName))
            let stale = try await database.records(in: Self.zone, ofType: Self.recordType)
                .map(\.recordID).filter { !local.contains($0.recordName) }
            for chunk in stride(from: 0, to: stale.count, by: Self.batchLimit) {
                let ids = Array(stale[chunk..<min(chunk + Self.batchLimit, stale.count)])
                let result = try await database.modify(saving: [], deleting: ids, savePolicy: .allKeys)
                if let failure = result.failures.first(where: { $0.value != .unknownItem })?.value { throw failure }
                report.deletedRemotely += ids.count
            }
            manifest.files = manifest.files.filter { entry in (try? LibraryPath(entry.key)).map { scan.files[$0] != nil } ?? false }
            try await upload(scan.files.keys.sorted(), scan: scan, policy: .allKeys, serverTags: [:], &manifest, &report)
            try save(&manifest)
        } catch {
            manifest.lastError = "\(error)"
            try? save(&manifest)
            throw error
        }
        // Take in the remote's changes (this device's own saves come back as echoes).
        let rest = try await sync()
        report.downloaded += rest.downloaded
        report.deletedLocally += rest.deletedLocally
        report.conflicts += rest.conflicts
        return report
    }

    // MARK: Pull

    private func pull(_ manifest: inout LibraryManifest, _ report: inout LibraryReport, serverTags: inout [LibraryPath: String]) async throws {
        var token = manifest.changeTokenData.flatMap { Data(base64Encoded: $0) }.map(ChangeToken.init(data:))
        var recreatedZone = false
        while true {
            let changes: ZoneChanges
            do {
                changes = try await database.fetchChanges(in: Self.zone, since: token, resultsLimit: Self.pageLimit)
            } catch CloudError.changeTokenExpired where token != nil {
                token = nil
                continue
            } catch CloudError.zoneNotFound where !recreatedZone {
                recreatedZone = true
                try await database.createZone(Self.zone)
                token = nil
                continue
            }
            let pathsByRecord = Dictionary(
                manifest.files.values.map { ($0.recordName, $0.path) }, uniquingKeysWith: { first, _ in first })
            let before = manifest
            var staged = LibraryFolder.StagedWrites()
            let files = changes.changed.filter { $0.recordType == Self.recordType }
            for record in files {
                try await apply(record, &manifest, &report, serverTags: &serverTags, staged: &staged, batchSize: files.count)
            }
            try folder.commit(&staged)
            for deleted in changes.deleted {
                guard let text = pathsByRecord[deleted.recordID.recordName], let path = try? LibraryPath(text) else { continue }
                try applyDeletion(of: path, &manifest, &report)
            }
            token = changes.token
            manifest.changeTokenData = changes.token.data.base64EncodedString()
            // Files first, then the manifest: a crash in between leaves files the next
            // sync recognises by their bytes.
            if manifest != before { try save(&manifest) }
            if !changes.moreComing { return }
        }
    }

    private func apply(
        _ record: RemoteRecord, _ manifest: inout LibraryManifest, _ report: inout LibraryReport,
        serverTags: inout [LibraryPath: String], staged: inout LibraryFolder.StagedWrites, batchSize: Int
    ) async throws {
        let name = record.recordID.recordName.prefix(16)
        guard case .string(let text)? = record.fields["path"] else {
            return refuse("record \(name)… has no path: not written", &report)
        }
        let path: LibraryPath
        do {
            path = try LibraryPath(text)
        } catch {
            return refuse("record \(name)…: \(error): not written", &report)
        }
        guard path.recordName == record.recordID.recordName else {
            return refuse("record \(name)… is not the record of \(path): not written", &report)
        }
        let entry = manifest.files[path.text]
        let serverTime = record.modificationDate ?? clock.now()
        if let tag = record.changeTag, entry?.recordChangeTag == tag { return }  // this device's own save
        guard let data = try await fileData(of: record, path: path, &report) else { return }
        let local = folder.state(of: path)
        let localChanged = local.map { state in
            entry.map { state.modified != $0.lastLocalModifiedAt || state.size != $0.size } ?? true
        } ?? false
        if localChanged, let local {
            let localData = try folder.read(path)
            if localData == data {
                try folder.setModified(path, serverTime)
            } else if local.modified > serverTime {
                // This device's edit is later: it stays, and goes out over this record.
                let copy = try folder.keepConflictCopy(data, of: path, side: "remote", modified: serverTime)
                report.conflicts += 1
                log(.conflict, "\(path): this device's version (\(local.modified)) is later than the remote's (\(serverTime)); the remote's is kept as \(copy)")
                if let tag = record.changeTag { serverTags[path] = tag }
                return
            } else {
                let copy = try folder.keepConflictCopy(localData, of: path, side: "local", modified: local.modified)
                try folder.stage(data, at: path, modified: serverTime, expected: batchSize, into: &staged)
                report.conflicts += 1
                log(.conflict, "\(path): the remote's version (\(serverTime)) is later than this device's (\(local.modified)); this device's is kept as \(copy)")
            }
        } else if let local, local.size == data.count, try folder.read(path) == data {
            // The same bytes under a new seal or record name (encryption turned on or off, a
            // new key): the file is left as it is; only its time follows the record's.
            try folder.setModified(path, serverTime)
        } else {
            try folder.stage(data, at: path, modified: serverTime, expected: batchSize, into: &staged)
            report.downloaded += 1
        }
        manifest.files[path.text] = LibraryManifest.Entry(
            path: path.text, recordName: path.recordName, lastLocalModifiedAt: serverTime,
            lastKnownServerModifiedAt: serverTime, recordChangeTag: record.changeTag, size: data.count)
    }

    private func applyDeletion(of path: LibraryPath, _ manifest: inout LibraryManifest, _ report: inout LibraryReport) throws {
        guard let entry = manifest.files.removeValue(forKey: path.text) else { return }
        guard let local = folder.state(of: path) else { return }
        if local.modified == entry.lastLocalModifiedAt && local.size == entry.size {
            try folder.delete(path)
            report.deletedLocally += 1
        } else {
            log(.warning, "\(path) was deleted on another device after it changed here: this device's version is kept and sent again")
        }
    }

    // MARK: Push

    private func push(_ manifest: inout LibraryManifest, _ report: inout LibraryReport, serverTags: [LibraryPath: String]) async throws {
        let scan = try scanAndReport(&manifest, &report)
        let changed = scan.files.filter { path, state in
            guard let entry = manifest.files[path.text] else { return true }
            return state.modified != entry.lastLocalModifiedAt || state.size != entry.size || serverTags[path] != nil
        }.keys.sorted()
        let gone = manifest.files.keys.compactMap { try? LibraryPath($0) }.filter { scan.files[$0] == nil }.sorted()
        for chunk in stride(from: 0, to: gone.count, by: Self.batchLimit) {
            let paths = Array(gone[chunk..<min(chunk + Self.batchLimit, gone.count)])
            let ids = paths.map { RecordID(recordName: $0.recordName, zoneID: Self.zone) }
            let result = try await database.modify(saving: [], deleting: ids, savePolicy: .allKeys)
            for path in paths {
                let id = RecordID(recordName: path.recordName, zoneID: Self.zone)
                if let failure = result.failures[id], failure != .unknownItem { throw failure }
                manifest.files[path.text] = nil
                report.deletedRemotely += 1
            }
            try save(&manifest)
        }
        try await upload(changed, scan: scan, policy: .ifServerRecordUnchanged, serverTags: serverTags, &manifest, &report)
    }

    /// Sends `paths` in batches; a conflict is settled by last write wins, and a local
    /// version that wins goes out again over the server's tag.
    private func upload(
        _ paths: [LibraryPath], scan: LibraryFolder.Scan, policy: SavePolicy, serverTags: [LibraryPath: String],
        _ manifest: inout LibraryManifest, _ report: inout LibraryReport
    ) async throws {
        var tags = serverTags
        var queue = paths[...]
        var resent: [LibraryPath: Int] = [:]
        while !queue.isEmpty {
            var batch: [(path: LibraryPath, data: Data, state: LibraryFolder.FileState, filedata: FieldValue)] = []
            var inlineBytes = 0, heldBytes = 0
            while let path = queue.first, batch.count < Self.batchLimit {
                guard let state = scan.files[path] else { queue.removeFirst(); continue }
                let data = try folder.read(path)
                if data.count > Self.maximumFileBytes {
                    queue.removeFirst()
                    refuse("\(path) is over \(AssetReference.maximumSize >> 20) MB: not synced", &report)
                    continue
                }
                let inline = Self.fitsInRecord(data, at: path)
                if !batch.isEmpty && (heldBytes + data.count > Self.maximumBatchBytes
                    || inline && inlineBytes + data.count > Self.maximumRequestBytes) { break }
                queue.removeFirst()
                heldBytes += data.count
                if inline { inlineBytes += data.count }
                // An asset goes up before the record that names it, which the remote refuses otherwise.
                let filedata: FieldValue = inline ? .bytes(data) : .asset(try await database.uploadAsset(data))
                batch.append((path, data, state, filedata))
            }
            guard !batch.isEmpty else { continue }
            let records = batch.map { item in
                var record = RemoteRecord(
                    recordType: Self.recordType, recordID: RecordID(recordName: item.path.recordName, zoneID: Self.zone),
                    fields: ["filename": .string(item.path.fileName), "path": .string(item.path.text), "filedata": item.filedata])
                record.changeTag = tags[item.path] ?? manifest.files[item.path.text]?.recordChangeTag
                return record
            }
            let result = try await database.modify(saving: records, deleting: [], savePolicy: policy)
            let byID = Dictionary(batch.map { (RecordID(recordName: $0.path.recordName, zoneID: Self.zone), $0) }, uniquingKeysWith: { a, _ in a })
            for saved in result.saved {
                guard let item = byID[saved.recordID] else { continue }
                let serverTime = saved.modificationDate ?? clock.now()
                // Both devices end with the record's time on the file, unless it changed meanwhile.
                var localTime = item.state.modified
                if folder.state(of: item.path) == item.state {
                    try folder.setModified(item.path, serverTime)
                    localTime = serverTime
                }
                manifest.files[item.path.text] = LibraryManifest.Entry(
                    path: item.path.text, recordName: item.path.recordName, lastLocalModifiedAt: localTime,
                    lastKnownServerModifiedAt: serverTime, recordChangeTag: saved.changeTag, size: item.state.size)
                report.uploaded += 1
            }
            var failure: CloudError?
            for (recordID, error) in result.failures {
                guard let item = byID[recordID] else { continue }
                switch error {
                case .serverRecordChanged(let server?) where (resent[item.path] ?? 0) < 3:
                    resent[item.path, default: 0] += 1
                    let serverTime = server.modificationDate ?? clock.now()
                    if item.state.modified > serverTime || !Self.hasData(server) {
                        tags[item.path] = server.changeTag
                        queue.append(item.path)
                    } else {
                        try await settleLoss(item.path, local: item.data, localTime: item.state.modified, to: server, &manifest, &report)
                    }
                case .unknownItem where (resent[item.path] ?? 0) < 3:
                    // Updated a record the remote no longer has: send it as new.
                    resent[item.path, default: 0] += 1
                    tags[item.path] = nil
                    manifest.files[item.path.text]?.recordChangeTag = nil
                    queue.append(item.path)
                default:
                    failure = failure ?? error
                }
            }
            try save(&manifest)
            if let failure { throw failure }
        }
    }

    private static func hasData(_ record: RemoteRecord) -> Bool {
        switch record.fields["filedata"] {
        case .bytes?, .asset?: true
        default: false
        }
    }

    /// The bytes of the file `record` holds: inline, or its asset fetched. Nil, with one line
    /// in the log, if it holds none or the remote lacks its asset.
    private func fileData(of record: RemoteRecord, path: LibraryPath, _ report: inout LibraryReport) async throws -> Data? {
        switch record.fields["filedata"] {
        case .bytes(let data)?:
            return data
        case .asset(let reference)?:
            do {
                return try await database.fetchAsset(reference)
            } catch CloudError.unknownItem {
                refuse("the remote has no \(reference) for \(path): not written", &report)
                return nil
            }
        default:
            refuse("record of \(path) has no filedata: not written", &report)
            return nil
        }
    }

    /// Whether `data` fits inline in the record of `path`, its names included.
    private static func fitsInRecord(_ data: Data, at path: LibraryPath) -> Bool {
        let names = "filename".utf8.count + "path".utf8.count + "filedata".utf8.count + path.fileName.utf8.count + path.text.utf8.count
        return data.count + names <= maximumRecordBytes - sealingMargin
    }

    /// The remote's version of `path` is later: this device's is kept in `.conflicts/` and
    /// the remote's written in its place.
    private func settleLoss(
        _ path: LibraryPath, local: Data, localTime: Timestamp, to server: RemoteRecord,
        _ manifest: inout LibraryManifest, _ report: inout LibraryReport
    ) async throws {
        guard let data = try await fileData(of: server, path: path, &report) else { return }
        let serverTime = server.modificationDate ?? clock.now()
        let copy = try folder.keepConflictCopy(local, of: path, side: "local", modified: localTime)
        try folder.write(data, at: path, modified: serverTime)
        report.conflicts += 1
        log(.conflict, "\(path): the remote's version (\(serverTime)) is later than this device's (\(localTime)); this device's is kept as \(copy)")
        manifest.files[path.text] = LibraryManifest.Entry(
            path: path.text, recordName: path.recordName, lastLocalModifiedAt: serverTime,
            lastKnownServerModifiedAt: serverTime, recordChangeTag: server.changeTag, size: data.count)
    }

    // MARK: Shared

    /// Scans the folder; files outside the layout and refused ones are reported once each.
    private func scanAndReport(_ manifest: inout LibraryManifest, _ report: inout LibraryReport) throws -> LibraryFolder.Scan {
        let scan = try folder.scan()
        var reported = Set(manifest.reportedUnsynced ?? [])
        for path in scan.unsynced where !reported.contains(path) {
            reported.insert(path)
            log(.info, "\(path) is not synced: the library syncs Favorite.json and the .json files in Items/ and FavoriteItems/")
        }
        for line in scan.refused where !reported.contains(line) {
            reported.insert(line)
            refuse(line, &report)
        }
        manifest.reportedUnsynced = reported.isEmpty ? nil : reported.sorted()
        return scan
    }

    private func refuse(_ line: String, _ report: inout LibraryReport) {
        report.refused.append(line)
        log(.warning, "library: \(line)")
    }

    private func save(_ manifest: inout LibraryManifest) throws {
        manifest.updatedAt = clock.now()
        try manifest.save(to: folder.root)
    }
}

extension LibrarySession {
    /// The folder against its manifest, and the remote's changes since the manifest's
    /// token (counted, not applied; nil if the remote can't be reached).
    public func status() async throws -> LibraryStatus {
        let manifest = try loadManifest()
        let scan = try folder.scan()
        let local = Self.localChanges(scan, manifest)
        let downloads = try? await remoteChangeCount(manifest, scan)
        return LibraryStatus(
            files: scan.files.count, pendingUploads: local.uploads, pendingDeletes: local.deletes,
            pendingDownloads: downloads, notSynced: scan.unsynced,
            lastSyncAt: manifest.lastSyncAt, lastError: manifest.lastError)
    }

    /// New, changed and deleted files not yet sent, counted without the remote: what the
    /// status bar shows as "library: N pending".
    public func localPendingCount() throws -> Int {
        let manifest = try loadManifest()
        let local = Self.localChanges(try folder.scan(), manifest)
        return local.uploads + local.deletes
    }

    private static func localChanges(_ scan: LibraryFolder.Scan, _ manifest: LibraryManifest) -> (uploads: Int, deletes: Int) {
        let uploads = scan.files.count { path, state in
            guard let entry = manifest.files[path.text] else { return true }
            return state.modified != entry.lastLocalModifiedAt || state.size != entry.size
        }
        let deletes = manifest.files.keys.count { key in (try? LibraryPath(key)).map { scan.files[$0] == nil } ?? true }
        return (uploads, deletes)
    }

    /// The files the remote's changes since the manifest's token would still bring or take
    /// away here, each counted once: a record saved by another device (not one this device's
    /// own save left behind), or deleted while its file is still in the folder. A deletion of
    /// a file this device already removed, or never had, brings nothing down.
    private func remoteChangeCount(_ manifest: LibraryManifest, _ scan: LibraryFolder.Scan) async throws -> Int {
        let tags = Set(manifest.files.values.compactMap(\.recordChangeTag))
        let here = Set(manifest.files.values.filter { entry in (try? LibraryPath(entry.path)).map { scan.files[$0] != nil } ?? false }
            .map(\.recordName))
        var token = manifest.changeTokenData.flatMap { Data(base64Encoded: $0) }.map(ChangeToken.init(data:))
        var pending: Set<String> = []
        while true {
            let changes = try await database.fetchChanges(in: Self.zone, since: token, resultsLimit: Self.pageLimit)
            for record in changes.changed where !tags.contains(record.changeTag ?? "") { pending.insert(record.recordID.recordName) }
            for deleted in changes.deleted {
                let name = deleted.recordID.recordName
                if here.contains(name) { pending.insert(name) } else { pending.remove(name) }
            }
            token = changes.token
            if !changes.moreComing { return pending.count }
        }
    }
}
