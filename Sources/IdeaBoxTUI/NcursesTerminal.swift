import CNcurses
import Foundation

/// The real terminal: ncursesw in raw mode on the alternate screen, with bracketed paste.
///
/// One instance per process (ncurses keeps one global screen). `restore()`, `deinit`,
/// process exit and SIGINT, SIGTERM or SIGHUP all give the terminal back; after a signal
/// the process exits with status 128 + the signal number.
public final class NcursesTerminal: TerminalBackend {
    /// Why the terminal could not be set up.
    public enum SetupError: Error, CustomStringConvertible {
        /// Neither the environment's locale nor C.UTF-8 could be used for LC_CTYPE.
        case noUTF8Locale
        /// ncurses does not know the terminal type, or there is no terminal.
        case unusableTerminal(String)

        /// One line saying what went wrong.
        public var description: String {
            switch self {
            case .noUTF8Locale:
                "no UTF-8 locale is available (tried the environment and C.UTF-8)"
            case .unusableTerminal(let type):
                "cannot use the terminal (TERM=\(type)); run ideabox in an interactive terminal"
            }
        }
    }

    private static let escapeDelayMilliseconds: Int32 = 25
    private static let handledSignals = [SIGINT, SIGTERM, SIGHUP]
    private static let enableBracketedPaste = "\u{1B}[?2004h"
    private static let disableBracketedPaste = "\u{1B}[?2004l"
    private static let exitHandler: Void = { atexit { NcursesTerminal.shutDownCurses() } }()

    private let window: UnsafeMutablePointer<WINDOW>
    private let usesColors: Bool
    private let joinsAfterZeroWidthJoiner: Bool
    private var previousFrame: CellGrid?
    private var cursorVisible = false
    private var isActive = true

    /// Takes over the terminal. With `NO_COLOR` set and not empty no color is used (the
    /// colors that must stand out become bold); `TMUX` tells that the terminal joins ZWJ
    /// emoji sequences into one two-cell glyph.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        try Self.useUTF8Locale()
        guard cncurses_newterm() != nil, let window = cncurses_stdscr() else {
            throw SetupError.unusableTerminal(environment["TERM"] ?? "unset")
        }
        self.window = window
        _ = Self.exitHandler
        Self.installSignalHandlers()
        raw()
        noecho()
        nonl()
        keypad(window, true)
        intrflush(window, false)
        set_escdelay(Self.escapeDelayMilliseconds)
        curs_set(0)
        usesColors = environment["NO_COLOR", default: ""].isEmpty && has_colors()
        if usesColors {
            start_color()
            use_default_colors()
            for color in CellColor.allCases where color != .default {
                init_pair(Self.pairNumber(color), Self.foreground(color), -1)
            }
        }
        joinsAfterZeroWidthJoiner = environment["TMUX"] != nil
        Self.writeDirectly(Self.enableBracketedPaste)
    }

    deinit {
        restore()
    }

    /// The current size of the screen, updated by ncurses when the terminal is resized.
    public var size: TerminalSize {
        return TerminalSize(rows: Int(getmaxy(window)), columns: Int(getmaxx(window)))
    }

    /// Writes the runs that changed since the last frame, places the cursor, and sends the
    /// frame with a single `doupdate`; a frame of another size repaints the whole screen.
    public func draw(_ grid: CellGrid, cursor: CursorPosition?) {
        if let previousFrame, previousFrame.rows != grid.rows || previousFrame.columns != grid.columns {
            clearok(window, true)
        }
        let screen = size
        for run in GridDiff.runs(from: previousFrame, to: grid) where run.row < screen.rows {
            write(run, within: screen.columns)
        }
        previousFrame = grid
        if (cursor != nil) != cursorVisible {
            cursorVisible = cursor != nil
            curs_set(cursorVisible ? 1 : 0)
        }
        if let cursor {
            wmove(window, Int32(cursor.row), Int32(cursor.column))
        }
        wnoutrefresh(window)
        doupdate()
    }

    /// Waits up to `timeoutMilliseconds` (forever when negative) for the first input, then
    /// drains whatever else is already waiting, so an escape sequence or a paste arrives in
    /// one batch.
    public func readInput(timeoutMilliseconds: Int) -> [RawInput] {
        var inputs: [RawInput] = []
        var value: wint_t = 0
        wtimeout(window, Int32(clamping: timeoutMilliseconds))
        var status = wget_wch(window, &value)
        wtimeout(window, 0)
        while status != ERR {
            if status == KEY_CODE_YES {
                inputs.append(.keyCode(Int32(bitPattern: value)))
            } else if let scalar = Unicode.Scalar(value) {
                inputs.append(.character(scalar))
            }
            status = wget_wch(window, &value)
        }
        return inputs
    }

    /// Leaves the alternate screen, turns bracketed paste off and restores the tty modes
    /// and the default signal handlers; the terminal is not drawn to afterwards.
    public func restore() {
        guard isActive else { return }
        isActive = false
        Self.shutDownCurses()
        for signalNumber in Self.handledSignals {
            signal(signalNumber, SIG_DFL)
        }
    }

    /// Safe to call at any time, from a signal handler or at exit included: it does nothing
    /// unless ncurses currently owns the terminal.
    private static func shutDownCurses() {
        guard cncurses_is_active() else { return }
        endwin()
        writeDirectly(disableBracketedPaste)
    }

    /// Writes a mode switch straight to the terminal: `putp` does not send strings that are
    /// not terminfo capabilities, and ncurses has flushed its own buffer at both call sites.
    private static func writeDirectly(_ sequence: String) {
        sequence.utf8CString.withUnsafeBufferPointer { bytes in
            _ = Foundation.write(STDOUT_FILENO, bytes.baseAddress, bytes.count - 1)
        }
    }

    private static func installSignalHandlers() {
        for signalNumber in handledSignals {
            signal(signalNumber) { received in
                NcursesTerminal.shutDownCurses()
                _exit(128 + received)
            }
        }
    }

    /// Uses the environment's LC_CTYPE when it is a working UTF-8 locale, else C.UTF-8:
    /// ncursesw needs a UTF-8 LC_CTYPE to read and write anything beyond ASCII.
    private static func useUTF8Locale() throws {
        if setlocale(LC_CTYPE, "") != nil, let codeset = nl_langinfo(nl_item(CODESET)) {
            let name = String(cString: codeset).uppercased()
            if name == "UTF-8" || name == "UTF8" { return }
        }
        guard setlocale(LC_CTYPE, "C.UTF-8") != nil else { throw SetupError.noUTF8Locale }
    }

    /// Writes the clusters of `run` that fit in `columns`, each at its own column; a frame
    /// drawn for a bigger screen just before a resize is clipped rather than wrapped.
    private func write(_ run: CellRun, within columns: Int) {
        for (offset, cell) in run.cells.enumerated() where !cell.isContinuation {
            let isWide = offset + 1 < run.cells.count && run.cells[offset + 1].isContinuation
            guard run.column + offset + (isWide ? 2 : 1) <= columns else { return }
            let (attributes, pair) = rendition(of: cell.style)
            wmove(window, Int32(run.row), Int32(run.column + offset))
            let glyphs = TerminalGlyph.layout(
                cell.text,
                cellWidth: isWide ? 2 : 1,
                joinsAfterZeroWidthJoiner: joinsAfterZeroWidthJoiner,
                scalarWidth: { Int(cncurses_wcwidth(wchar_t(bitPattern: $0.value))) }
            )
            for glyph in glyphs {
                let characters = glyph.scalars.map { wchar_t(bitPattern: $0.value) }
                cncurses_add_glyph(window, characters, Int32(characters.count), attributes, pair)
            }
        }
    }

    /// The ncurses attributes and color pair for `style`; without colors the named colors
    /// that must stand out become bold.
    private func rendition(of style: CellStyle) -> (attr_t, Int16) {
        var bold = style.bold
        if !usesColors {
            switch style.color {
            case .accent, .error, .highlight: bold = true
            case .default, .muted, .success: break
            }
        }
        let attributes = cncurses_attributes(bold, style.underline, style.reverse, style.dim)
        return (attributes, usesColors ? Self.pairNumber(style.color) : 0)
    }

    private static func pairNumber(_ color: CellColor) -> Int16 {
        Int16(CellColor.allCases.firstIndex(of: color) ?? 0)
    }

    private static func foreground(_ color: CellColor) -> Int16 {
        switch color {
        case .default: -1
        case .accent: Int16(COLOR_CYAN)
        case .muted: cncurses_colors() >= 16 ? 8 : Int16(COLOR_WHITE)
        case .error: Int16(COLOR_RED)
        case .success: Int16(COLOR_GREEN)
        case .highlight: Int16(COLOR_YELLOW)
        }
    }
}
