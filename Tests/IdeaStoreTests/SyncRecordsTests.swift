import Foundation
import IdeaModel
import IdeaStore
import Testing

/// The conflict log, the sync log and the sync bookkeeping.
@Suite struct SyncRecordsTests {
    private static func idea(_ number: Int, title: String = "Idea", deviceId: String = "device-a") -> Idea {
        let hex = String(number, radix: 16)
        return Idea(
            id: uuid("c0f11c70-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex),
            title: "\(title) \(number) 靈感 👍🏽", description: "line one\nline \"two\"", isCompleted: number.isMultiple(of: 2),
            createdAt: StoreFixture.start, updatedAt: StoreFixture.start.adding(milliseconds: Int64(number)),
            deviceId: deviceId, version: number, lastSyncedAt: number.isMultiple(of: 3) ? nil : StoreFixture.start)
    }

    // MARK: Conflicts

    @Test func conflictLogKeepsTheNewestHundred() throws {
        let store = try StoreFixture()
        let resolutions = ConflictResolution.allCases
        for number in 0..<130 {
            try store.repository.logConflict(ConflictRecord(
                ideaId: Self.idea(number).id, occurredAt: StoreFixture.start.adding(milliseconds: Int64(number)),
                local: Self.idea(number), remote: Self.idea(number, title: "Remote", deviceId: "device-b"),
                resolution: resolutions[number % resolutions.count]))
        }
        #expect(IdeaRepository.conflictLogLimit == 100)
        let conflicts = try store.repository.conflicts(limit: 1000)
        #expect(conflicts.count == 100)
        #expect(conflicts.map(\.ideaId) == (30..<130).reversed().map { Self.idea($0).id })
        #expect(conflicts.map(\.occurredAt.milliseconds) == (30..<130).reversed().map { StoreFixture.start.milliseconds + Int64($0) })
        #expect(conflicts.first?.resolution == resolutions[129 % resolutions.count])
        #expect(try store.repository.conflicts().count == 100)
        #expect(try store.repository.conflicts(limit: 3).map(\.ideaId) == [129, 128, 127].map { Self.idea($0).id })
    }

    @Test("Snapshots come back exactly, including a deleted side", arguments: [
        (true, true, ConflictResolution.local), (true, false, .remote), (false, true, .tieBreaker), (false, false, .remote),
    ])
    func snapshotsRoundTrip(hasLocal: Bool, hasRemote: Bool, resolution: ConflictResolution) throws {
        let store = try StoreFixture()
        let record = ConflictRecord(
            ideaId: Self.idea(3).id, occurredAt: StoreFixture.start.adding(milliseconds: 123),
            local: hasLocal ? Self.idea(3) : nil,
            remote: hasRemote ? Self.idea(4, title: "Remote", deviceId: "device-b") : nil,
            resolution: resolution)
        try store.repository.logConflict(record)
        #expect(try store.repository.conflicts() == [record])
    }

    @Test func everyConflictIsInTheSyncLog() throws {
        let store = try StoreFixture()
        let id = Self.idea(1).id
        try store.repository.logConflict(ConflictRecord(
            ideaId: id, occurredAt: StoreFixture.start, local: nil, remote: Self.idea(1), resolution: .tieBreaker))
        try store.repository.logConflict(ConflictRecord(
            ideaId: id, occurredAt: StoreFixture.start, local: Self.idea(1), remote: Self.idea(1), resolution: .remote,
            fields: [.isCompleted: .local, .title: .remote]))
        let short = id.uuidString.lowercased().prefix(8)
        #expect(try store.repository.syncLog().map { SyncLogEntry(occurredAt: $0.occurredAt, kind: $0.kind, message: $0.message) } == [
            SyncLogEntry(
                occurredAt: StoreFixture.start, kind: .conflict,
                message: "“\(Self.idea(1).title)” (\(short)): kept another device's title (the later edit), "
                    + "this device's done mark (the later edit)"),
            SyncLogEntry(
                occurredAt: StoreFixture.start, kind: .conflict,
                message: "“\(Self.idea(1).title)” (\(short)): kept one version (the same moment: device order)"),
        ])
        #expect(try store.repository.conflicts().first?.fields == [.isCompleted: .local, .title: .remote])
        // Kept as an event, the line has Chinese words too.
        #expect(try store.repository.syncLog().map { $0.text(in: .traditionalChinese) } == [
            "「\(Self.idea(1).title)」（\(short)）的衝突：保留另一台裝置的標題（較晚的編輯）、這台裝置的完成狀態（較晚的編輯）",
            "「\(Self.idea(1).title)」（\(short)）的衝突：保留其中一個版本（同一時刻：依裝置順序）",
        ])
    }

    /// A conflict's line names the device whose value was kept by the name its records
    /// carried, in both languages, and says why; never `Remote`, `TieBreaker` or an id.
    @Test func aConflictLineNamesTheDeviceWhoseValueWasKept() throws {
        let store = try StoreFixture()
        let laptop = "7c1e9a40-laptop"
        _ = try store.repository.applyRemoteChanges(
            [], deviceNames: [DeviceNaming(deviceId: laptop, name: "laptop", namedAt: StoreFixture.start)],
            changeToken: .keep, syncedAt: StoreFixture.start, rule: ConflictRule.decide)
        let id = Self.idea(1).id
        try store.repository.logConflict(ConflictRecord(
            ideaId: id, occurredAt: StoreFixture.start, local: Self.idea(1), remote: Self.idea(1), resolution: .remote,
            fields: [.title: .remote, .description: .tieBreaker],
            keptFrom: [.title: laptop, .description: store.repository.deviceId]))
        try store.repository.logConflict(ConflictRecord(
            ideaId: id, occurredAt: StoreFixture.start, local: Self.idea(1), remote: nil, resolution: .remote,
            keptVersion: SyncLogEvent.KeptVersion(deviceId: laptop, isDelete: true)))
        let short = id.uuidString.lowercased().prefix(8)
        let title = Self.idea(1).title
        let log = try store.repository.syncLog()
        #expect(log.map(\.message) == [
            "“\(title)” (\(short)): kept laptop's delete (the later edit)",
            "“\(title)” (\(short)): kept laptop's title (the later edit), this device's description (the same moment: device order)",
        ])
        let names = try store.repository.deviceNames()
        #expect(log.map { $0.event?.text(in: .traditionalChinese, names: names) } == [
            "「\(title)」（\(short)）的衝突：保留 laptop 的刪除（較晚的編輯）",
            "「\(title)」（\(short)）的衝突：保留 laptop 的標題（較晚的編輯）、這台裝置的描述（同一時刻：依裝置順序）",
        ])
        for line in log.map(\.message) {
            #expect(!line.contains("Remote") && !line.contains("TieBreaker") && !line.contains(laptop), "\(line)")
        }
    }

    @Test func resolutionNamesAreTheDocumentedOnes() {
        #expect(ConflictResolution.allCases.map(\.rawValue) == ["Local", "Remote", "TieBreaker"])
    }

    // MARK: Sync log

    @Test func syncLogIsNewestFirstAndKeepsEveryKind() throws {
        let store = try StoreFixture()
        let entries = SyncLogEntry.Kind.allCases.enumerated().map { index, kind in
            SyncLogEntry(occurredAt: StoreFixture.start.adding(milliseconds: Int64(index)), kind: kind, message: "\(kind) 靈感 \"\(index)\"")
        }
        for entry in entries {
            try store.repository.appendSyncLog(entry)
        }
        #expect(try store.repository.syncLog() == entries.reversed())
        #expect(try store.repository.syncLog(limit: 2) == entries.reversed().prefix(2).map { $0 })
    }

    @Test func syncLogKeepsTheNewestThousand() throws {
        let store = try StoreFixture()
        for number in 0..<1030 {
            try store.repository.appendSyncLog(SyncLogEntry(
                occurredAt: StoreFixture.start.adding(milliseconds: Int64(number)), kind: .upload, message: "entry \(number)"))
        }
        #expect(IdeaRepository.syncLogLimit == 1000)
        let log = try store.repository.syncLog(limit: 5000)
        #expect(log.count == 1000)
        #expect(log.first?.message == "entry 1029")
        #expect(log.last?.message == "entry 30")
        #expect(log.map(\.message) == (30..<1030).reversed().map { "entry \($0)" })
        #expect(try store.repository.syncLog().count == 100, "100 lines unless asked for more")
    }

    // MARK: Sync metadata

    @Test func syncMetadataStartsEmpty() throws {
        let store = try StoreFixture()
        #expect(try store.repository.syncMetadata() == SyncMetadata())
        #expect(try store.repository.syncMetadata() == SyncMetadata(isSyncEnabled: false, lastSyncAt: nil, lastSyncError: nil, changeToken: nil))
    }

    @Test func syncMetadataRoundTrips() throws {
        let store = try StoreFixture()
        let full = SyncMetadata(
            isSyncEnabled: true, lastSyncAt: StoreFixture.start.adding(milliseconds: 7),
            lastSyncError: "Network unavailable — 網路無法使用", changeToken: Data([0, 1, 2, 0xFF, 0xFE, 0]))
        try store.repository.saveSyncMetadata(full)
        #expect(try store.repository.syncMetadata() == full)

        let cleared = SyncMetadata(isSyncEnabled: true, lastSyncAt: StoreFixture.start.adding(milliseconds: 8))
        try store.repository.saveSyncMetadata(cleared)
        #expect(try store.repository.syncMetadata() == cleared, "nil fields are cleared, not kept")

        try store.repository.saveSyncMetadata(SyncMetadata())
        #expect(try store.repository.syncMetadata() == SyncMetadata())
    }

    @Test func syncMetadataSurvivesReopening() throws {
        try withTemporaryDirectory { directory in
            let metadata = SyncMetadata(isSyncEnabled: true, lastSyncAt: StoreFixture.start, changeToken: Data("token-1".utf8))
            let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english)
            do {
                let database = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch)
                try database.repository(clock: .fixed(StoreFixture.start), ids: .counting()).saveSyncMetadata(metadata)
            }
            let database = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch)
            #expect(try database.repository(clock: .fixed(StoreFixture.start), ids: .counting()).syncMetadata() == metadata)
        }
    }
}
