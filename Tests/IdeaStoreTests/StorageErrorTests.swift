import DatabaseDamage
import Foundation
import GRDB
import IdeaModel
import IdeaStore
import Testing

/// The store turns Foundation's and SQLite's errors into `StorageError`s a person can act on.
@Suite struct StorageErrorTests {
    private static let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english)

    @Test func aDataFolderThatIsAFileIsNamed() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("data")
            try Data("not a folder".utf8).write(to: file)
            let profile = file.appendingPathComponent("profiles/default", isDirectory: true)
            #expect(throws: StorageError.folderIsAFile(path: file.path)) {
                try IdeaDatabase.open(directory: profile, firstLaunch: Self.firstLaunch, use: .command)
            }
            #expect(try Data(contentsOf: file) == Data("not a folder".utf8))
        }
    }

    @Test(arguments: [IdeaDatabase.Use.command, .app])
    func aFileThatIsNotADatabaseIsNamedAndLeftAlone(use: IdeaDatabase.Use) throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let text = Data(String(repeating: "These are my notes, not a database.\n", count: 200).utf8)
            try text.write(to: file)
            #expect(throws: StorageError.damaged(path: file.path)) {
                try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: use)
            }
            #expect(try Data(contentsOf: file) == text)
        }
    }

    @Test func aFullDiskUndoesTheEditAndSaysSo() throws {
        let fixture = try StoreFixture()
        _ = try fixture.repository.addIdea(title: "Before the disk filled up")
        try fixture.database.writer.write { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let before = try fixture.allIdeas()
        #expect(throws: StorageError.self) {
            for number in 1...100 {
                _ = try fixture.repository.addIdea(title: "Idea \(number)", description: String(repeating: "長", count: 4000))
            }
        }
        let error = #expect(throws: StorageError.self) {
            _ = try fixture.repository.addIdea(title: "One more", description: String(repeating: "長", count: 4000))
        }
        guard case .diskFull = error else {
            Issue.record("expected diskFull, got \(String(describing: error))")
            return
        }
        #expect(try fixture.allIdeas().count >= before.count)
        #expect(try fixture.allIdeas().allSatisfy { $0.title != "One more" })
    }

    @Test func sqliteCodesMapToWhatAPersonCanDo() throws {
        try withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("ideabox.sqlite").path
            #expect(StorageError(DatabaseError(resultCode: .SQLITE_NOTADB), directory: directory) == .damaged(path: database))
            #expect(
                StorageError(DatabaseError(resultCode: .SQLITE_CORRUPT), directory: directory, options: ["--profile", "phone"])
                    == .damaged(path: database, options: ["--profile", "phone"]))
            #expect(StorageError(DatabaseError(resultCode: .SQLITE_FULL), directory: directory) == .diskFull(path: directory.path))
            for code in [ResultCode.SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM] {
                #expect(StorageError(DatabaseError(resultCode: code), directory: directory) == .readOnly(path: directory.path))
            }
            #expect(StorageError(DatabaseError(resultCode: .SQLITE_CONSTRAINT), directory: directory) == nil)
            let denied = CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: directory.path])
            #expect(StorageError(denied, directory: directory.appendingPathComponent("profiles/default")) == .readOnly(path: directory.path))
        }
    }

    @Test func messagesSayWhatIsWrongAndWhatToDoInBothLanguages() {
        let error = StorageError.readOnly(path: "/data")
        #expect(error.message(in: .english)
            == "IdeaBox can't write in /data: make the folder writable, or choose another data folder with --data-dir.")
        #expect(error.message(in: .traditionalChinese) == "IdeaBox 無法寫入「/data」：請讓這個資料夾可以寫入，或用 --data-dir 指定其他資料夾")
        #expect(StorageError.diskFull(path: "/data").message(in: .english)
            == "The disk holding /data is full: free some space and try again; nothing was changed.")
    }

    @Test func aDamagedDatabaseNamesTheRepairWithTheOptionsThatChoseIt() {
        let damaged = StorageError.damaged(path: "/d/ideabox.sqlite", options: ["--data-dir", "/my data", "--profile", "phone"])
        #expect(damaged.message(in: .english) == """
            /d/ideabox.sqlite is damaged: run `ideabox repair --data-dir '/my data' --profile phone`, which keeps every idea \
            it can still read and sets the damaged file aside; the next sync brings back the rest.
            """)
        #expect(damaged.message(in: .traditionalChinese) == """
            「/d/ideabox.sqlite」已損毀：請執行 `ideabox repair --data-dir '/my data' --profile phone`，它會保留所有仍可讀取的靈感，\
            並把損毀的檔案留在一旁；下次同步會補回其餘部分
            """)
        #expect(StorageError.damaged(path: "/d/ideabox.sqlite").message(in: .english).contains("run `ideabox repair`,"))
        #expect(StorageError.inUse(path: "/d/ideabox.sqlite", options: ["--profile", "it's"]).message(in: .english) == """
            /d/ideabox.sqlite is open in another IdeaBox (the app, or `sync --watch`): quit it, then run \
            `ideabox repair --profile 'it'\\''s'` again.
            """)
    }

    @Test func aDamagedPageFoundByAReadIsTheSameSentence() throws {
        try withTemporaryDirectory { directory in
            let database = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, options: ["--profile", "phone"])
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1))
            for number in 1...400 {
                _ = try repository.addIdea(title: "Idea \(number)", description: String(repeating: "d", count: 200))
            }
            try database.close()
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let pages = try DatabaseDamage.leafPages(of: "idea", in: file)
            try DatabaseDamage.overwrite(pages: [pages[pages.count / 2]], of: file)
            let reopened = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, options: ["--profile", "phone"])
            #expect(throws: StorageError.damaged(path: file.path, options: ["--profile", "phone"])) {
                try reopened.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1)).forEachIdea(.all) { _ in }
            }
        }
    }
}
