import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import Testing

/// Apps over fixed ideas and a fixed clock, and the comparison of their frames with the
/// golden captures in `Screens/`.
enum ScreenFixtures {
    /// The fixed "now" of every capture: 2026-03-02T10:00:00.000Z.
    static let now = Timestamp(milliseconds: 1_772_445_600_000)

    /// One fixture idea, `age` seconds old (created and last updated then), with the
    /// readable id `00000000-0000-4000-8000-0000000000NN`.
    static func idea(
        _ number: Int, _ title: String, _ description: String = "", done: Bool = false, age: Int64
    ) -> Idea {
        let time = now.adding(milliseconds: -age * 1000)
        let suffix = String(number, radix: 16)
        let id = UUID(uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - suffix.count) + suffix)!
        return Idea(
            id: id, title: title, description: description, isCompleted: done,
            createdAt: time, updatedAt: time, deviceId: "fixture-device")
    }

    /// Ideas in English: done and open, with and without descriptions, one title too
    /// long for its column, ages from "just now" to a date.
    static let englishIdeas: [Idea] = [
        idea(1, "Offline-first sync for the ideas list",
             "Queue every edit in an outbox; push in batches of 100 when the network is back.", age: 30),
        idea(2, "Keyboard shortcuts cheat sheet", "Print it and tape it next to the monitor.", done: true, age: 5 * 60),
        idea(3, "A very long title that keeps going well past the width of the title column on purpose",
             "The description never shows: the title takes the room.", age: 3 * 3600),
        idea(4, "Weekly review ritual", "Friday 4 pm: go through every open idea.\nClose what went stale.",
             done: true, age: 2 * 86_400),
        idea(5, "Learn SwiftData", age: 6 * 86_400),
        idea(6, "Plant tomatoes on the balcony", "Cherry tomatoes, two pots, start in March.", done: true,
             age: 12 * 86_400),
        idea(7, "Sync conflicts explained in one page", "Last write wins by updatedAt; ties go by device id.",
             age: 40 * 86_400),
        idea(8, "Read The Pragmatic Programmer", "One chapter a week, notes in the margin.", done: true,
             age: 90 * 86_400),
    ]

    /// Ideas in Traditional Chinese with emoji (skin tone, ZWJ sequence, flag, VS16), mixed
    /// with English, some done, one title long enough to be cut.
    static let chineseIdeas: [Idea] = [
        idea(11, "學習 SwiftData 持久化 📚", "讀完官方指南，做一個小範例 👍🏽", age: 10 * 60),
        idea(12, "週末去陽明山健行 🥾", "帶水、帶雨衣，早上七點出發", done: true, age: 2 * 3600),
        idea(13, "寫一個終端機版的靈感盒 👩‍💻", "用 Swift 6 與 ncurses，支援中文寬字元與表情符號", age: 5 * 3600),
        idea(14, "靈感：把每天的想法記下來", "睡前花五分鐘回顧今天的靈感", age: 86_400),
        idea(15, "整理相簿 🇹🇼 旅行照片", "把 2025 年的照片依城市分類", done: true, age: 3 * 86_400),
        idea(16, "一個非常非常長的標題，用來測試寬字元在欄位邊界被截斷時是否會顯示省略號而不會把字切成一半，再多寫幾個字確保它真的很長",
             "描述也很長，但標題已經佔滿了空間", age: 8 * 86_400),
        idea(17, "Mixed 中英文 title with emoji 🎉", "English and 中文 mixed 描述 ❤️ 加上愛心", done: true, age: 20 * 86_400),
        idea(18, "讀《原子習慣》", "每天進步 1%，一年後強大 37 倍", age: 60 * 86_400),
    ]

    /// An app over a fresh in-memory database holding `ideas`, started and sized, with
    /// its clock stopped at `now`.
    /// The ideas wait in the outbox since their `updatedAt`; on a device that `hasSynced`
    /// before, those 30 or more days old are stale.
    /// `clock` is the app's (default: stopped at `now`).
    static func app(
        _ ideas: [Idea], language: Language = .english, rows: Int = 24, columns: Int = 80, hasSynced: Bool = false,
        clock: WallClock = .fixed(now)
    ) throws -> AppModel {
        try appAndRepository(ideas, language: language, rows: rows, columns: columns, hasSynced: hasSynced, clock: clock).app
    }

    /// Like `app(_:language:rows:columns:hasSynced:clock:)`, with a second repository on the same
    /// database: another device's changes, as sync would apply them.
    static func appAndRepository(
        _ ideas: [Idea], language: Language = .english, rows: Int = 24, columns: Int = 80, hasSynced: Bool = false,
        clock: WallClock = .fixed(now)
    ) throws -> (app: AppModel, elsewhere: IdeaRepository) {
        let database = try IdeaDatabase.inMemory(
            firstLaunch: .init(seedsSamples: false, language: language), ids: .counting())
        let repository = database.repository(clock: .fixed(now), ids: .counting(from: 1000))
        // Each imported when it was last changed: an import queues its ideas at its own time.
        for idea in ideas.sorted(by: { $0.updatedAt < $1.updatedAt }) {
            _ = try database.repository(clock: .fixed(idea.updatedAt), ids: .counting(from: 1000)).importIdeas([idea])
        }
        if hasSynced { try repository.recordSyncSuccess(at: now.adding(milliseconds: -100 * 86_400_000)) }
        let app = AppModel(repository: repository, language: language, clock: clock)
        try app.start()
        app.resize(rows: rows, columns: columns)
        return (app, database.repository(clock: .fixed(now), ids: .counting(from: 5000)))
    }

    /// An app on a new data directory as a first launch at `now` makes it: the seven
    /// samples in `language`, stamped with the current time.
    static func firstLaunchApp(language: Language = .english) throws -> AppModel {
        let database = try IdeaDatabase.inMemory(
            firstLaunch: .init(seedsSamples: true, language: language, clock: .fixed(now)), ids: .counting())
        let app = AppModel(
            repository: database.repository(clock: .fixed(now), ids: .counting(from: 1000)), language: language,
            clock: .fixed(now))
        try app.start()
        app.resize(rows: 24, columns: 80)
        return app
    }

    /// An app with sync hooks (an engine that is never started, over an in-memory remote)
    /// whose log holds a few lines and two settled conflicts: one this device won and one
    /// another device's newer edit won.
    static func appWithSyncLog(language: Language) throws -> AppModel {
        let ideas = language == .english ? englishIdeas : chineseIdeas
        let database = try IdeaDatabase.inMemory(firstLaunch: .init(seedsSamples: false, language: language), ids: .counting())
        let repository = database.repository(clock: .fixed(now), ids: .counting(from: 1000))
        _ = try repository.importIdeas(ideas)
        // This device edits two titles, not yet sent; another device edits them too.
        for idea in ideas.prefix(2) {
            _ = try repository.editIdea(
                id: idea.id, IdeaChanges(title: idea.title + (language == .english ? " (edited here)" : "（在這裡編輯）")))
        }
        var theirs = ideas[0]
        theirs.title += language == .english ? " (edited on the laptop)" : "（在筆電上編輯）"
        theirs.updatedAt = now.adding(milliseconds: 5000)
        theirs.deviceId = "7c1e9a40-laptop"
        var older = ideas[1]
        older.title += language == .english ? " (an older edit)" : "（較舊的編輯）"
        older.updatedAt = older.updatedAt.adding(milliseconds: -60_000)
        older.deviceId = "3b5d2f88-phone"
        // The laptop's records carry its name; the phone's (an older IdeaBox) none.
        let laptopName = DeviceNaming(deviceId: theirs.deviceId, name: language == .english ? "laptop" : "筆電", namedAt: now)
        _ = try repository.applyRemoteChanges(
            [.saved(theirs, FieldStamps(legacy: theirs)), .saved(older, FieldStamps(legacy: older))],
            deviceNames: [laptopName], changeToken: .keep, syncedAt: now, rule: ConflictRule.decide)
        for (index, message) in ["sent 7 change(s)", "applied 2 remote change(s)", "integrity: 8 ideas, 8 records"].enumerated() {
            try repository.appendSyncLog(
                SyncLogEntry(occurredAt: now.adding(milliseconds: Int64(index) * 1000), kind: index == 0 ? .upload : .download, message: message))
        }
        let (synced, _, _) = try syncingApp(repository: repository, language: language)
        synced.resize(rows: 24, columns: 100)
        return synced
    }

    /// An app over `repository` with sync hooks: an engine on a manual scheduler (not yet
    /// started) over an in-memory remote whose network the app's `o` turns off and on.
    static func syncingApp(
        repository: IdeaRepository, language: Language
    ) throws -> (app: AppModel, engine: SyncEngine, scheduler: ManualSyncScheduler) {
        let cloud = try SimulatedCloud.inMemory(clock: .fixed(now))
        let scheduler = ManualSyncScheduler(start: now)
        let engine = SyncEngine(
            session: SyncSession(repository: repository, database: cloud.database(forDevice: "screen"), clock: .fixed(now)),
            scheduler: scheduler)
        let hooks = SyncHooks(
            engine: engine, isNetworkOn: { try !cloud.status(device: "screen").isOffline },
            setNetworkOn: { try cloud.network.setOffline(!$0, device: "screen") })
        let app = AppModel(repository: repository, language: language, clock: .fixed(now), sync: hooks)
        try app.start()
        app.resize(rows: 24, columns: 80)
        return (app, engine, scheduler)
    }

    /// Presses `keys` in order.
    static func press(_ keys: [Key], on app: AppModel) {
        for key in keys {
            app.handle(key)
        }
    }

    /// Types `text` one grapheme cluster at a time, as a keyboard would.
    static func type(_ text: String, on app: AppModel) {
        press(text.map { Key.char($0) }, on: app)
    }
}

/// The golden captures under `Screens/`: compared, or rewritten when
/// `IDEABOX_UPDATE_SCREENS=1`.
enum Screens {
    /// `Screens/` at the package root, found from this file's path.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Screens")

    /// Whether the run rewrites the captures instead of checking them.
    static var isUpdating: Bool {
        ProcessInfo.processInfo.environment["IDEABOX_UPDATE_SCREENS"] == "1"
    }

    /// Checks the frame's layout rules, then compares its text with `Screens/<name>.txt`
    /// (or writes it there when updating).
    static func expect(
        _ frame: Frame, matches name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        Layout.check(frame.grid, sourceLocation: sourceLocation)
        let actual = frame.grid.renderText() + "\n"
        let url = directory.appendingPathComponent("\(name).txt")
        if isUpdating {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url, options: .atomic)
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record(
                "Screens/\(name).txt is missing; run with IDEABOX_UPDATE_SCREENS=1 to write it",
                sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard actual != expected else { return }
        Issue.record(
            Comment(rawValue: difference(expected: expected, actual: actual, name: name)),
            sourceLocation: sourceLocation)
    }

    /// The first differing line of two captures, both versions shown.
    static func difference(expected: String, actual: String, name: String) -> String {
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let old = index < expectedLines.count ? String(expectedLines[index]) : "<no line>"
            let new = index < actualLines.count ? String(actualLines[index]) : "<no line>"
            if old != new {
                return """
                    Screens/\(name).txt differs at line \(index + 1) \
                    (IDEABOX_UPDATE_SCREENS=1 rewrites it):
                      expected: "\(old)"
                      actual:   "\(new)"
                    """
            }
        }
        return "Screens/\(name).txt differs"
    }
}

/// Layout rules every frame keeps, checked on the grid itself.
enum Layout {
    /// Records an issue for every broken rule: a line wider than the screen, a wide
    /// character cut in half, a box whose edges don't meet.
    static func check(_ grid: CellGrid, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = grid.renderText().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == grid.rows, "one text line per row", sourceLocation: sourceLocation)
        for (row, line) in lines.enumerated() {
            #expect(TextWidth.width(of: line) <= grid.columns,
                    "row \(row) is \(TextWidth.width(of: line)) cells wide: \(line)", sourceLocation: sourceLocation)
        }
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let cell = grid[row, column]
                if cell.isContinuation {
                    let isAfterWide = column > 0 && TextWidth.width(of: grid[row, column - 1].text) == 2
                    #expect(isAfterWide, "half a wide character at (\(row), \(column))", sourceLocation: sourceLocation)
                } else if TextWidth.width(of: cell.text) == 2 {
                    let hasRightHalf = column + 1 < grid.columns && grid[row, column + 1].isContinuation
                    #expect(hasRightHalf, "wide \(cell.text) at (\(row), \(column)) lacks its right half",
                            sourceLocation: sourceLocation)
                }
            }
        }
        for box in boxes(in: grid) {
            checkEdges(of: box, in: grid, sourceLocation: sourceLocation)
        }
    }

    /// Every box drawn on `grid`, found from its top-left corner and its top edge.
    static func boxes(in grid: CellGrid) -> [Box] {
        var found: [Box] = []
        for row in 0..<grid.rows {
            for column in 0..<grid.columns where grid[row, column].text == "┌" {
                guard let right = (column + 1..<grid.columns).first(where: { grid[row, $0].text == "┐" }),
                      let bottom = (row + 1..<grid.rows).first(where: { grid[$0, column].text == "└" })
                else {
                    Issue.record("a box at (\(row), \(column)) has no top-right or bottom-left corner")
                    continue
                }
                found.append(Box(top: row, left: column, height: bottom - row + 1, width: right - column + 1))
            }
        }
        return found
    }

    /// Checks that the box's side edges and bottom-right corner sit in the columns its
    /// top corners set, on every row.
    static func checkEdges(of box: Box, in grid: CellGrid, sourceLocation: SourceLocation) {
        let right = box.left + box.width - 1
        let bottom = box.top + box.height - 1
        for row in box.top + 1..<bottom {
            #expect(grid[row, box.left].text == "│", "left edge of the box at row \(row)", sourceLocation: sourceLocation)
            #expect(grid[row, right].text == "│", "right edge of the box at row \(row), column \(right)",
                    sourceLocation: sourceLocation)
        }
        #expect(grid[bottom, right].text == "┘", "bottom-right corner at (\(bottom), \(right))",
                sourceLocation: sourceLocation)
    }

    /// The text of `row`, trailing spaces trimmed.
    static func line(_ row: Int, of grid: CellGrid) -> String {
        String(grid.renderText().split(separator: "\n", omittingEmptySubsequences: false)[row])
    }
}

extension ScreenFixtures {
    /// Another device's id in the captures.
    static let laptop = "7c1e9a40-laptop"

    /// Another device's change of `fields` of `idea` to `changed`'s values, stamped five
    /// seconds after `now`, applied as sync applies it.
    static func changeElsewhere(
        _ idea: Idea, fields: [IdeaField], to changed: Idea, in repository: IdeaRepository, seconds: Int64 = 5
    ) throws {
        guard let current = try repository.idea(id: idea.id) else { return }
        var theirs = current
        for field in fields { theirs = theirs.taking(field, from: changed) }
        let order = SyncOrder(timestamp: now.adding(milliseconds: seconds * 1000), deviceId: laptop)
        theirs.updatedAt = order.timestamp
        theirs.deviceId = laptop
        theirs.version += 1
        var stamps: FieldStamps?
        try repository.forEachSyncState { change in
            if case let .saved(stored, storedStamps) = change, stored.id == idea.id { stamps = storedStamps }
        }
        let theirStamps = (stamps ?? FieldStamps(legacy: current)).setting(fields, to: order)
        _ = try repository.applyRemoteChanges(
            [.saved(theirs, theirStamps)], deviceNames: [DeviceNaming(deviceId: laptop, name: "laptop", namedAt: order.timestamp)],
            changeToken: .keep, syncedAt: now, rule: ConflictRule.decide)
    }
}
