import Foundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// `SyncLogView`: its rows, its scrolling, the overwrite questions and the conflict at the top.
@Suite struct SyncLogViewTests {
    private static let text = UIText(language: .english, timeZone: TimeZone(identifier: "UTC")!)

    /// A log of `entries` lines and `conflicts` conflicts.
    private func log(entries: Int, conflicts: Int) -> SyncLogView {
        var log = SyncLogView()
        log.entries = (0..<entries).map { SyncLogEntry(occurredAt: ViewModelFixture.start, kind: .info, message: "line \($0)") }
        log.conflicts = (0..<conflicts).map { number in
            let idea = Idea(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(number)")!, title: "Conflict \(number)", createdAt: ViewModelFixture.start, deviceId: "here")
            return ConflictRecord(ideaId: idea.id, occurredAt: ViewModelFixture.start, local: idea, remote: idea, resolution: .local)
        }
        return log
    }

    @Test func scrollingKeysScrollWithinItsRowsAndOthersCloseOrQuit() {
        var log = log(entries: 30, conflicts: 0)
        let rows = log.rows(in: Self.text, width: 76).count
        #expect(log.handle(.down, text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .none && log.scroll == 1)
        #expect(log.handle(.char("G"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .none)
        #expect(log.scroll == rows - 10)
        #expect(log.handle(.char("j"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .none)
        #expect(log.scroll == rows - 10, "never past the end")
        #expect(log.handle(.char("q"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .close)
        #expect(log.handle(.ctrl("c"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .quit)
        #expect(log.handle(.char("h"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .openHistoryOfTopConflict)
    }

    @Test func theOverwriteQuestionsAreAskedThenAnsweredOnce() {
        var log = log(entries: 1, conflicts: 0)
        #expect(log.handle(.char("L"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .none)
        #expect(log.confirmingOverwrite == nil, "no library companion, no question")
        _ = log.handle(.char("L"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { "library" })
        #expect(log.confirmingOverwrite == .companion("library"))
        #expect(log.handle(.char("y"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .overwrite(.companion("library")))
        #expect(log.confirmingOverwrite == nil)
        _ = log.handle(.char("O"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil })
        #expect(log.confirmingOverwrite == .ideas)
        #expect(log.handle(.char("n"), text: Self.text, width: 76, visibleRows: 10, libraryCompanion: { nil }) == .none)
        #expect(log.confirmingOverwrite == nil, "any other key says no")
    }

    @Test func theTopConflictIsTheFirstAtOrBelowTheTopOfTheView() {
        var log = log(entries: 2, conflicts: 3)
        #expect(SyncLogView().topConflict == nil)
        #expect(log.topConflict?.title == "Conflict 0")
        // Two log lines, a blank and the heading: the conflicts start at line 4, three lines each.
        log.scroll = 4
        #expect(log.topConflict?.title == "Conflict 0", "the first conflict's first line at the top")
        log.scroll = 5
        #expect(log.topConflict?.title == "Conflict 1", "the first conflict partly scrolled off: the next")
        log.scroll = 7
        #expect(log.topConflict?.title == "Conflict 1")
        log.scroll = 100
        #expect(log.topConflict?.title == "Conflict 2", "past them all: the last")
    }
}
