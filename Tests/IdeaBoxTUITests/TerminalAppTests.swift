import CNcurses
@testable import IdeaBoxTUI
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import Testing

/// The main loop over a terminal that a test scripts: what it reads, draws and gives back.
@Suite struct TerminalAppTests {
    /// An editor a test must not reach.
    static let noEditor = ExternalEditor(command: "false") { _, _ in .failed(status: 1) }

    /// A terminal that hands out scripted batches of input and records what the loop did.
    private final class ScriptedTerminal: TerminalBackend {
        var batches: [[RawInput]]
        var reads = 0
        var frames = 0
        var suspends = 0
        var outsideRuns = 0
        var restores = 0
        /// What `y` sent to the clipboard, and whether this terminal takes it.
        var copies: [String] = []
        var takesCopies = true
        var size = TerminalSize(rows: 24, columns: 80)
        /// The size the terminal has from the read of that number (1 is the first) on, as
        /// ncurses takes a new size in the read that reports it.
        var sizeFromRead: [Int: TerminalSize] = [:]

        init(_ batches: [[RawInput]]) {
            self.batches = batches
        }

        func draw(_ grid: CellGrid, cursor: CursorPosition?) { frames += 1 }

        func readInput(timeoutMilliseconds: Int) -> [RawInput] {
            reads += 1
            if let resized = sizeFromRead[reads] { size = resized }
            // Past the script, the input has ended: a loop that ignored it would read on.
            return batches.isEmpty ? [.endOfInput] : batches.removeFirst()
        }

        func suspend() { suspends += 1 }
        func runOutside(_ work: () -> Void) {
            outsideRuns += 1
            work()
        }
        func restore() { restores += 1 }

        func copyToClipboard(_ text: String) -> Bool {
            copies.append(text)
            return takesCopies
        }
    }

    @Test func theEndOfInputEndsTheLoopInAnyStateAndGivesTheTerminalBack() throws {
        for keys in [[RawInput](), [.character("n")], [.character("?")], [.character("d")]] {
            let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
            let terminal = ScriptedTerminal([keys, [.endOfInput]])
            TerminalApp(app: app, terminal: terminal, editor: Self.noEditor).run()
            #expect(terminal.reads == 2, "no read after the end of input")
            #expect(terminal.restores == 1)
        }
    }

    @Test func keysBeforeTheEndOfInputAreStillHandled() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        let terminal = ScriptedTerminal([[.character("j"), .character("j"), .endOfInput]])
        TerminalApp(app: app, terminal: terminal, editor: Self.noEditor).run()
        #expect(app.allIdeas.selectedIndex == 2)
        #expect(terminal.reads == 1)
    }

    /// A key typed right after a resize comes in the resize's batch (ncurses reports the resize
    /// first): it meets the new size. `p` at 80 columns opens the preview full screen; handled
    /// at the old 120, it would have toggled the pane beside the list, which 80 columns hide.
    @Test func aKeyInTheBatchOfAResizeMeetsTheNewSize() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        let terminal = ScriptedTerminal([[.character("p")], [.keyCode(KEY_RESIZE), .character("p")], [.endOfInput]])
        terminal.size = TerminalSize(rows: 24, columns: 120)
        terminal.sizeFromRead = [2: TerminalSize(rows: 24, columns: 80)]
        TerminalApp(app: app, terminal: terminal, editor: Self.noEditor).run()
        #expect(!app.isPreviewPaneWanted, "the first p hid the pane at 120 columns")
        #expect(app.isShowingFullPreview)
    }

    @Test func ctrlZSuspendsAndTheLoopGoesOn() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        let terminal = ScriptedTerminal([[.character("\u{1A}")], [.character("j")], [.character("q")]])
        TerminalApp(app: app, terminal: terminal, editor: Self.noEditor).run()
        #expect(terminal.suspends == 1)
        #expect(!app.wantsToSuspend)
        #expect(app.allIdeas.selectedIndex == 1, "keys after the resume still count")
        #expect(terminal.restores == 1)
    }

    @Test func yHandsTheIdeaToTheTerminalsClipboardOnceAndTheBarSaysWhatCameOfIt() throws {
        for takesCopies in [true, false] {
            let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
            let terminal = ScriptedTerminal([[.character("y"), .character("j")], [.endOfInput]])
            terminal.takesCopies = takesCopies
            TerminalApp(app: app, terminal: terminal, editor: Self.noEditor).run()
            let first = try #require(ScreenFixtures.englishIdeas.max { $0.createdAt < $1.createdAt })
            #expect(terminal.copies == [first.title + "\n\n" + first.description])
            #expect(app.status.message?.text == (takesCopies ? app.text.copied : app.text.copyRefused))
        }
    }
}

/// `E`: the loop gives the terminal to the editor and takes it back.
@Suite struct TerminalAppEditorTests {
    private final class Terminal: TerminalBackend {
        var batches: [[RawInput]]
        var outsideRuns = 0
        var framesAfterOutside = 0
        let size = TerminalSize(rows: 24, columns: 80)

        init(_ batches: [[RawInput]]) { self.batches = batches }
        func draw(_ grid: CellGrid, cursor: CursorPosition?) { if outsideRuns > 0 { framesAfterOutside += 1 } }
        func readInput(timeoutMilliseconds: Int) -> [RawInput] { batches.isEmpty ? [.endOfInput] : batches.removeFirst() }
        func suspend() {}
        func restore() {}
        func runOutside(_ work: () -> Void) {
            outsideRuns += 1
            work()
        }
    }

    @Test func eRunsTheEditorOutsideTheScreenThenSavesAndRedraws() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        let terminal = Terminal([[.character("E")], [.character("q")]])
        let editor = ExternalEditor(command: "fake") { text, fileName in
            #expect(fileName == "idea.txt")
            #expect(text.hasPrefix("Offline-first sync for the ideas list\n\nQueue every edit"))
            return .changed("Edited outside\n\nnew words\n")
        }
        TerminalApp(app: app, terminal: terminal, editor: editor).run()
        #expect(terminal.outsideRuns == 1)
        #expect(terminal.framesAfterOutside >= 1, "drawn again on return")
        #expect(app.allIdeas.visibleRows.first?.idea.title == "Edited outside")
    }
}
