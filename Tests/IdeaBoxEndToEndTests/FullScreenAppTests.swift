import Foundation
import ProcessTestSupport
import Testing

/// The real `ideabox` full-screen app in tmux: what a person types and what they see.
@Suite("Full-screen app in tmux", .takesTurns)
struct FullScreenAppTests {
    /// Add, complete, find on Completed and in Search, delete, undo, quit: one idea's life.
    @Test func ideaLifecycleWithAChineseTitle() async throws {
        let session = try await TmuxSession(before: [["add", "Buy more tea"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)", "Buy more tea")

        try await session.press("n")
        try await session.waitFor("New idea")
        try await session.type("寫一本關於茶的書")
        try await session.waitFor("寫一本關於茶的書")
        try await session.press("C-s")
        var screen = try await session.waitFor("the new idea selected at the top") { screen in
            // Rows are drawn top to bottom: wait for the key bar, so the rows above are whole.
            screen.contains("All Ideas (2)") && screen.line(2).hasPrefix(">[ ] 寫一本關於茶的書")
                && !screen.line(22).isEmpty
        }
        #expect(screen.line(3).hasPrefix(" [ ] Buy more tea"), "\(screen)")
        #expect(screen.width(ofLine: 2) == 79, "the row should end at the last column but one:\n\(screen)")

        try await session.press("x")
        try await session.waitFor("the idea marked done") { screen in
            screen.line(2).hasPrefix(">[x] 寫一本關於茶的書") && screen.contains("Completed (1)")
                && screen.contains("Marked done")
        }
        try await session.press("2")
        try await session.waitFor("the Completed tab with the idea alone") { screen in
            screen.line(2).hasPrefix(">[x] 寫一本關於茶的書") && !screen.contains("Buy more tea")
        }

        try await session.press("/")
        try await session.waitFor("Search:", "Type to search")
        try await session.type("茶")
        screen = try await session.waitFor("a one-character search") { screen in
            screen.contains("1 match") && screen.line(4).contains("寫一本關於茶的書")
        }
        try await session.press("BSpace")
        try await session.type("的書")
        try await session.waitFor("a two-character search") { screen in
            screen.contains("Search: 的書") && screen.contains("1 match") && screen.line(4).contains("寫一本關於茶的書")
        }

        try await session.press("Enter")
        try await session.waitFor("the search result selected") { $0.line(4).hasPrefix(">[x] 寫一本關於茶的書") }
        try await session.press("d")
        try await session.waitFor("Delete “寫一本關於茶的書”? y/n")
        try await session.press("y")
        try await session.waitFor("the idea deleted") { screen in
            screen.contains("u to undo") && screen.contains("No ideas match.") && screen.contains("Completed (0)")
        }
        try await session.press("u")
        try await session.waitFor("the idea restored") { screen in
            screen.contains("Undid delete") && screen.line(4).contains("寫一本關於茶的書") && screen.contains("Completed (1)")
        }
        try await session.press("1")
        try await session.waitFor("All Ideas with both ideas") { screen in
            screen.contains("All Ideas (2)") && screen.line(2).contains("寫一本關於茶的書")
                && screen.line(3).contains("Buy more tea")
        }

        try await session.press("q")
        try await expectTerminalRestored(session)
        let stored = try await session.run(["list", "--completed"])
        #expect(stored.hasSuffix("  [x] 寫一本關於茶的書\n"), "\(stored)")
    }

    /// Text typed into the form survives growing, shrinking below the minimum and back.
    @Test func resizingKeepsTheOpenForm() async throws {
        let session = try await TmuxSession()
        defer { session.close() }
        try await session.waitFor("No ideas yet")
        try await session.press("n")
        try await session.waitFor("New idea")
        try await session.type("調整視窗 resize")
        try await session.press("Tab")
        try await session.type("描述：寬字元")
        try await session.waitFor("調整視窗 resize", "描述：寬字元")

        try await session.resize(columns: 100, rows: 30)
        try await session.waitFor("the form at 100x30") { screen in
            screen.lines.count == 30 && screen.contains("調整視窗 resize") && screen.contains("描述：寬字元")
                && screen.line(29).contains(" pending")
        }
        try await session.resize(columns: 30, rows: 8)
        try await session.waitFor("the too-small notice") { screen in
            screen.lines.count == 8 && screen.contains("Terminal too small") && !screen.contains("調整視窗")
        }
        try await session.resize(columns: 80, rows: 24)
        try await session.waitFor("the form back at 80x24") { screen in
            screen.lines.count == 24 && screen.contains("New idea") && screen.contains("調整視窗 resize")
                && screen.contains("描述：寬字元") && screen.line(23).contains(" pending")
        }
        try await session.type("。")
        try await session.press("C-s")
        let screen = try await session.waitFor("the saved idea") { screen in
            screen.line(2).hasPrefix(">[ ] 調整視窗 resize") && screen.line(2).contains("描述：寬字元。")
                && !screen.line(22).isEmpty
        }
        #expect(screen.width(ofLine: 2) == 79, "\(screen)")

        try await session.resize(columns: 100, rows: 30)
        try await session.waitFor("the list at 100x30") { screen in
            screen.lines.count == 30 && screen.line(2).hasPrefix(">[ ] 調整視窗 resize")
                && screen.width(ofLine: 2) == 99 && screen.line(29).contains(" pending")
        }
        try await session.press("q")
        try await expectTerminalRestored(session)
    }

    /// A resize that comes right after a key, while the app is still handling or drawing it,
    /// is never lost: each of 20 times the form takes the new width with no other key (the box
    /// is as wide as the screen up to 100 columns, its right corner in the last one). Before
    /// each key the layout must hold for 400 ms (an app at rest takes longer over a key), and
    /// tmux resizes 0 to 2.5 ms after the key, half a millisecond later each time: before the
    /// fix, about one such resize in three was lost until the next key.
    @Test func aResizeRightAfterTypingInTheFormIsNeverLost() async throws {
        let session = try await TmuxSession()
        defer { session.close() }
        try await session.waitFor("No ideas yet")
        try await session.press("n")
        try await session.waitFor("New idea")
        var (typed, columns) = ("", 80)
        func laidOut(_ screen: Screen) -> Bool {
            guard let top = screen.lines.firstIndex(where: { $0.hasPrefix("┌ New idea") }) else { return false }
            return screen.width(ofLine: top) == columns && screen.line(top).hasSuffix("┐") && (typed.isEmpty || screen.contains(typed))
        }
        for round in 1...20 {
            try await session.keeps("the form \(columns) columns wide before round \(round)", for: .milliseconds(400), while: laidOut)
            columns = round.isMultiple(of: 2) ? 80 : 100
            typed += "r\(round % 10)"
            try await session.type("r\(round % 10)", thenResizeTo: columns, rows: 24, after: .microseconds(500 * (round % 6)))
            try await session.waitFor("the form \(columns) columns wide after typing, round \(round)", until: laidOut)
        }
    }

    /// The bound on the median time from another process's `ideabox add` starting to its
    /// idea drawn. With the app's look every 250 ms it took 32–286 ms (medians 237–255 ms over
    /// five runs, debug build, load average 4–8 from other builds): each add after the first
    /// is made just after a look, so it waits most of the 250 ms. A look every second makes
    /// those four wait most of a second, counted from the add's start whatever the add itself
    /// takes: with `tickMilliseconds` at 1000 the medians were 987 and 1005 ms, and this test
    /// failed. 700 ms leaves a loaded CI machine nearly three times the figure, and the median
    /// lets two of the five be slow.
    static let tickBound: Duration = .milliseconds(700)

    /// Ideas added by another process show up without a key press: between keys the app
    /// looks at the database's revision every `TerminalApp.tickMilliseconds` (250 ms). Five
    /// adds, each made as soon as the last one showed, and the median of their delays is
    /// under `tickBound`.
    @Test func changesFromAnotherProcessAppearWithoutAKeyPress() async throws {
        let session = try await TmuxSession()
        defer { session.close() }
        try await session.waitFor("All Ideas (0)", "No ideas yet")
        var delays: [Duration] = []
        for count in 1...5 {
            let title = "另一個行程的靈感 \(count)"
            nonisolated(unsafe) let adding = session
            delays.append(try await session.arrival("the other process's idea \(count)", after: {
                let start = ContinuousClock.now
                try adding.runOnThisThread(["add", title])
                return start
            }) { screen in
                screen.contains("All Ideas (\(count))") && screen.line(2).contains(title)
            })
        }
        let median = delays.sorted()[delays.count / 2]
        print("FullScreenAppTests: another process's ideas shown after \(delays), median \(median)")
        #expect(median < Self.tickBound, "median \(median) of \(delays)")
    }

    /// Ctrl-C quits like q, and gives the terminal back.
    @Test func controlCQuits() async throws {
        let session = try await TmuxSession()
        defer { session.close() }
        try await session.waitFor("No ideas yet")
        try await session.press("C-c")
        try await expectTerminalRestored(session)
    }

    /// A Chinese locale that isn't installed still gets Chinese labels and UTF-8 text.
    @Test func chineseLocaleWithoutTheLocaleInstalled() async throws {
        let session = try await TmuxSession(
            environment: ["LANG": "zh_TW.UTF-8", "LC_ALL": nil], before: [["add", "中文介面，寬字元"]])
        defer { session.close() }
        let screen = try await session.waitFor("Chinese labels") { screen in
            screen.contains("全部靈感 (1)") && screen.contains("已完成 (0)") && screen.contains("搜尋")
                && screen.line(2).hasPrefix(">[ ] 中文介面，寬字元")
                // The key bar is drawn last: a capture taken mid-draw has the list but not it.
                && screen.line(22).contains("n 新增")
        }
        #expect(screen.width(ofLine: 2) == 79, "\(screen)")
        try await session.press("q")
        try await expectTerminalRestored(session)
    }

    /// Without a UTF-8 locale in the environment, the app still reads and draws UTF-8.
    @Test(arguments: [
        ["LANG": nil, "LC_ALL": nil, "LC_CTYPE": nil],
        ["LANG": "C", "LC_ALL": nil],
        ["LANG": nil, "LC_ALL": "C"],
        ["LANG": "POSIX", "LC_ALL": "C"],
    ] as [[String: String?]])
    func chineseTextWithoutAUTF8Locale(environment: [String: String?]) async throws {
        let session = try await TmuxSession(environment: environment, before: [["add", "終端機裡的中文"]])
        defer { session.close() }
        var screen = try await session.waitFor("the Chinese title in English labels") { screen in
            screen.contains("All Ideas (1)") && screen.line(2).hasPrefix(">[ ] 終端機裡的中文")
                && !screen.line(22).isEmpty
        }
        #expect(screen.width(ofLine: 2) == 79, "\(screen)")
        try await session.press("/")
        try await session.waitFor("Search:")
        try await session.type("中文")
        screen = try await session.waitFor("typed Chinese in the search field") { screen in
            screen.contains("Search: 中文") && screen.contains("1 match") && screen.line(4).contains("終端機裡的中文")
        }
        try await session.press("Escape", "q")
        try await expectTerminalRestored(session)
    }

    /// `NO_COLOR` turns colors off (bold and reverse stay); without it, colors are used.
    @Test(arguments: [true, false])
    func noColor(set: Bool) async throws {
        let session = try await TmuxSession(environment: ["NO_COLOR": set ? "1" : nil], before: [["add", "沒有顏色 no color"]])
        defer { session.close() }
        try await session.waitFor("the list") { $0.line(2).hasPrefix(">[ ] 沒有顏色 no color") }
        let parameters = try await SGR.parameters(in: session.captureWithAttributes())
        #expect(parameters.contains(1) && parameters.contains(7), "bold and reverse are expected: \(parameters)")
        let colors = parameters.filter(SGR.isForegroundColor)
        if set {
            #expect(colors.isEmpty, "NO_COLOR=1 but colors \(colors) were drawn")
        } else {
            #expect(!colors.isEmpty, "no color was drawn")
        }
        try await session.press("q")
        try await expectTerminalRestored(session)
    }

    /// SIGHUP (the terminal closed), SIGTERM or SIGINT at any moment, the very start
    /// included, ends the app at once with 128 + the signal and gives the tty modes back. (A
    /// handler that called into Swift could wait forever on a lock the interrupted code
    /// held, spinning at 100% CPU after its terminal was gone: one such app was found
    /// orphaned after an hour.)
    @Test(arguments: [SIGHUP, SIGTERM, SIGINT, SIGHUP, SIGHUP, SIGTERM])
    func aSignalAtAnyMomentEndsTheApp(signal: Int32) async throws {
        let session = try await TmuxSession()
        defer { session.close() }
        let shell = try #require(pid_t(try await session.paneFormat("#{pane_pid}")))
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var app: pid_t?
        // Looks once more after the deadline: on a busy test pool a sleep can outlast it.
        while true {
            // `ideabox`, or `ideabox-full` once `ideabox` has handed the app over to it.
            app = Self.children(of: shell).first { child in
                Self.executable(of: child).map { $0.hasSuffix("/ideabox") || $0.hasSuffix("/ideabox-full") } ?? false
            }
            if app != nil || clock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let seen = Self.children(of: shell).map { "\($0) \(Self.executable(of: $0) ?? "?")" }
        let started = try #require(app, "the app never started under \(shell): \(seen)")
        kill(started, signal)
        let screen = try await session.waitFor("the app to end") { $0.contains(TmuxSession.exitMarker) }
        #expect(screen.contains("\(TmuxSession.exitMarker) \(128 + signal)"), "\(screen)")
        let before = try String(contentsOf: session.file("tty-before"), encoding: .utf8)
        let after = try String(contentsOf: session.file("tty-after"), encoding: .utf8)
        #expect(!before.isEmpty && before == after, "stty -g before: \(before) after: \(after)")
    }

    /// A hang-up while the app is drawn leaves the alternate screen, shows the cursor and
    /// puts the tty modes back, from the signal handler alone.
    @Test func aHangUpWhileDrawnGivesTheTerminalBack() async throws {
        let session = try await TmuxSession(before: [["add", "掛斷 hang up"]])
        defer { session.close() }
        try await session.waitFor("the list") { $0.line(2).hasPrefix(">[ ] 掛斷 hang up") }
        let shell = try #require(pid_t(try await session.paneFormat("#{pane_pid}")))
        let app = try #require(Self.children(of: shell).first)
        kill(app, SIGHUP)
        let screen = try await session.waitFor("the app to end") { $0.contains(TmuxSession.exitMarker) }
        #expect(screen.contains("\(TmuxSession.exitMarker) \(128 + SIGHUP)") && !screen.contains("All Ideas"), "\(screen)")
        #expect(try await session.paneFormat("alternate_on=#{alternate_on} cursor_flag=#{cursor_flag}") == "alternate_on=0 cursor_flag=1")
        let before = try String(contentsOf: session.file("tty-before"), encoding: .utf8)
        let after = try String(contentsOf: session.file("tty-after"), encoding: .utf8)
        #expect(!before.isEmpty && before == after, "stty -g before: \(before) after: \(after)")
    }

    private static func children(of process: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(process)/task/\(process)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private static func executable(of process: pid_t) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/exe")
    }

    /// Waits for the wrapper shell's `EXITED 0`, then checks that the app left the
    /// alternate screen and keypad mode, showed the cursor and put the tty modes back as it
    /// found them.
    private func expectTerminalRestored(
        _ session: TmuxSession, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let screen = try await session.waitFor("the app to exit") { $0.contains(TmuxSession.exitMarker) }
        #expect(screen.contains("\(TmuxSession.exitMarker) 0"), "\(screen)", sourceLocation: sourceLocation)
        #expect(!screen.contains("IdeaBox"), "the app's screen is still showing:\n\(screen)", sourceLocation: sourceLocation)
        let modes = try await session.paneFormat(
            "alternate_on=#{alternate_on} cursor_flag=#{cursor_flag} keypad_flag=#{keypad_flag} keypad_cursor_flag=#{keypad_cursor_flag}")
        #expect(modes == "alternate_on=0 cursor_flag=1 keypad_flag=0 keypad_cursor_flag=0", sourceLocation: sourceLocation)
        let before = try String(contentsOf: session.file("tty-before"), encoding: .utf8)
        let after = try String(contentsOf: session.file("tty-after"), encoding: .utf8)
        #expect(!before.isEmpty && before == after, "stty -g before: \(before) after: \(after)", sourceLocation: sourceLocation)
    }
}

/// Select Graphic Rendition parameters in the escape sequences of `capture-pane -e`.
enum SGR {
    /// Every parameter of every `ESC [ … m` in `text` (an empty list counts as 0).
    static func parameters(in text: String) throws -> [Int] {
        let pattern = try Regex(#"\x1B\[([0-9;:]*)m"#)
        return text.matches(of: pattern).flatMap { match -> [Int] in
            let list = match.output[1].substring ?? ""
            return list.isEmpty ? [0] : list.split(separator: ";").map { Int($0.prefix { $0.isNumber }) ?? 0 }
        }
    }

    /// A parameter that sets the foreground color (`39`, the default, doesn't).
    static func isForegroundColor(_ parameter: Int) -> Bool {
        (30...38).contains(parameter) || (90...97).contains(parameter)
    }
}
