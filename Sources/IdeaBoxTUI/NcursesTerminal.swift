import CNcurses
import CTerminalExit
import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel

/// The real terminal: ncursesw in raw mode on the alternate screen, with bracketed paste
/// and, unless turned off, the mouse.
///
/// ncurses sets the terminal's modes and decodes keys; frames are written by a
/// `TerminalWriter`, which carries every cell's whole grapheme cluster (ncurses keeps at
/// most five scalars a cell and measures each with `wcwidth`). One instance per process
/// (ncurses keeps one global screen). `restore()`, `deinit`, process exit and SIGINT,
/// SIGTERM or SIGHUP all give the terminal back; after a signal the process exits with
/// status 128 + the signal number.
public final class NcursesTerminal: TerminalBackend {
    /// Why the terminal could not be set up.
    public enum SetupError: UserFacingError, CustomStringConvertible {
        /// Standard input or output is not a terminal (a pipe, a file, /dev/null).
        case notATerminal
        /// Neither the environment's locale nor C.UTF-8 could be used for LC_CTYPE.
        case noUTF8Locale
        /// `TERM` is not set, or empty.
        case terminalTypeUnset
        /// terminfo does not know the terminal type.
        case unknownTerminal(String)
        /// The terminal type cannot move the cursor (`dumb`).
        case unusableTerminal(String)

        /// One line saying what went wrong and what to use instead.
        public func message(in language: Language) -> String {
            let text = UIText(language: language)
            switch self {
            case .notATerminal: return text.needsTerminal
            case .noUTF8Locale: return text.needsUTF8Locale
            case .terminalTypeUnset: return text.terminalTypeUnset
            case .unknownTerminal(let type): return text.unknownTerminal(type)
            case .unusableTerminal(let type): return text.unusableTerminal(type)
            }
        }

        /// The English message.
        public var description: String { message(in: .english) }
    }

    private static let escapeDelayMilliseconds: Int32 = 25
    private static let handledSignals = [SIGINT, SIGTERM, SIGHUP]
    /// Bracketed paste on, and autowrap off: a cluster a terminal draws wider than the grid
    /// measured it, in the last columns, must not spill onto the next row or scroll.
    private static let enableModes = "\u{1B}[?2004h\u{1B}[?7l"
    private static let disableModes = "\u{1B}[?7h\u{1B}[?2004l"
    /// Button presses, releases and the wheel, reported in SGR form (ESC [ < b ; x ; y M).
    private static let enableMouse = "\u{1B}[?1000h\u{1B}[?1006h"
    private static let disableMouse = "\u{1B}[?1006l\u{1B}[?1000l"
    private static let exitHandler: Void = { atexit { NcursesTerminal.shutDownCurses() } }()
    nonisolated(unsafe) private static var usesMouse = false

    private let window: UnsafeMutablePointer<WINDOW>
    private var writer: TerminalWriter
    private let features: TerminalFeatures
    private var previousFrame: CellGrid?
    private var isActive = true
    /// Reads in a row that returned nothing at once though input was said to be waiting.
    private var emptyReads = 0
    /// What ends a wait for a key early, besides a key: another thread, or a resize.
    private let wake: TerminalWake?
    /// So many of those in a row mean the input has ended: a terminal whose input ended
    /// gives them without pause, while a byte ncurses can't decode (the only other cause)
    /// gives one each.
    private static let emptyReadsAtEnd = 1000

    /// Checks, before anything is opened, that both ends of the process are a terminal
    /// that ncurses can drive: otherwise the app would draw into a pipe or wait on input
    /// that never comes.
    public static func checkUsable(environment: [String: String]) throws(SetupError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        guard let type = environment["TERM"], !type.isEmpty else { throw .terminalTypeUnset }
        switch cncurses_check_terminal() {
        case 1: return
        case 0: throw .unknownTerminal(type)
        default: throw .unusableTerminal(type)
        }
    }

    /// Takes over the terminal. With `NO_COLOR` set and not empty no color is used (the
    /// colors that must stand out become bold); with `mouse` clicks and the wheel arrive
    /// as keys; `wake` cuts a wait for a key short (the terminal makes its own for resizes
    /// when none is given); `hyperlinks` sends links as OSC 8 or not, whatever `TERM` says
    /// (nil: as `TerminalFeatures` judges `TERM`); `palette` colors the app (nil: no color,
    /// as under `NO_COLOR`, which wins over any palette).
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, mouse: Bool = true, wake: TerminalWake? = nil,
        hyperlinks: Bool? = nil, palette: TerminalPalette? = .standard
    ) throws {
        let wake = wake ?? TerminalWake()
        self.wake = wake
        try Self.checkUsable(environment: environment)
        try Self.useUTF8Locale()
        terminal_exit_save_modes()
        guard cncurses_newterm() != nil, let window = cncurses_stdscr() else {
            throw SetupError.unusableTerminal(environment["TERM"] ?? "")
        }
        self.window = window
        _ = Self.exitHandler
        Self.installSignalHandlers()
        // After newterm, which installed ncurses's own handler: this one calls it first.
        if let wake { terminal_resize_wakes(wake.writeEnd) }
        raw()
        noecho()
        nonl()
        keypad(window, true)
        // Mouse reports are decoded from their bytes (SGR): where terminfo's `kmous` is their
        // prefix (`\E[<`, xterm-256color), ncurses must not take them for its own.
        keyok(KEY_MOUSE, false)
        intrflush(window, false)
        set_escdelay(Self.escapeDelayMilliseconds)
        curs_set(0)
        let usesColors = environment["NO_COLOR", default: ""].isEmpty && has_colors() && palette != nil
        if usesColors {
            start_color()
            use_default_colors()
        }
        features = TerminalFeatures(term: environment["TERM"] ?? "")
        writer = TerminalWriter(
            usesColors: usesColors, hasBrightColors: cncurses_colors() >= 16, usesHyperlinks: hyperlinks ?? features.hyperlinks,
            palette: palette ?? .standard,
            scalarWidth: { Int(cncurses_wcwidth(wchar_t(bitPattern: $0.value))) })
        Self.usesMouse = mouse
        Self.prepareSignalExit(mouse: mouse)
        enterProgramModes()
    }

    deinit {
        restore()
    }

    /// The current size of the screen, updated by ncurses when the terminal is resized.
    public var size: TerminalSize {
        return TerminalSize(rows: Int(getmaxy(window)), columns: Int(getmaxx(window)))
    }

    /// Writes the runs that changed since the last frame and places the cursor, in one
    /// write; a frame of another size (or the first) clears the screen and paints it all.
    public func draw(_ grid: CellGrid, cursor: CursorPosition?) {
        if let previous = previousFrame, previous.rows != grid.rows || previous.columns != grid.columns {
            previousFrame = nil
        }
        if previousFrame == nil {
            // ncurses clears the screen (and is done with it: its own window stays
            // untouched, so it never draws over the frames written below).
            clearok(cncurses_curscr(), true)
            wnoutrefresh(window)
            doupdate()
        }
        let bytes = writer.frame(from: previousFrame, to: grid, screen: size, cursor: cursor)
        previousFrame = grid
        Self.writeDirectly(bytes)
    }

    /// Sends OSC 52 between frames, unless `TERM` names a terminal without a clipboard.
    public func copyToClipboard(_ text: String) -> Bool {
        guard features.clipboard else { return false }
        Self.writeDirectly(TerminalFeatures.clipboardSequence(text))
        return true
    }

    /// Waits up to `timeoutMilliseconds` (forever when negative) for the first input, then
    /// drains whatever else is already waiting, so an escape sequence or a paste arrives in
    /// one batch. A terminal that hung up gives `.endOfInput`, never an endless run of
    /// empty reads.
    public func readInput(timeoutMilliseconds: Int) -> [RawInput] {
        var inputs: [RawInput] = []
        var value: wint_t = 0
        var timeout = timeoutMilliseconds
        let started = ContinuousClock.now
        if let wake, timeout != 0 {
            // Wait here for a key or a wake; ncurses then reads what came without waiting.
            // A resize wakes the wait whenever it came (its handler writes to the wake's
            // pipe), and only a read lets ncurses take the new size and report it as a key.
            switch Self.waitForInput(or: wake, milliseconds: timeout) {
            case .timedOut: return []
            case .woken, .input: timeout = 0
            }
        }
        wtimeout(window, Int32(clamping: timeout))
        var status = wget_wch(window, &value)
        wtimeout(window, 0)
        let returnedEarly = timeout <= 0 || ContinuousClock.now - started < .milliseconds(timeout)
        if status == ERR, returnedEarly {
            switch Self.waitingInput() {
            case .hungUp:
                return [.endOfInput]
            case .readable:
                emptyReads += 1
                if emptyReads >= Self.emptyReadsAtEnd { return [.endOfInput] }
            case .none:
                emptyReads = 0
            }
        } else {
            emptyReads = 0
        }
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

    /// Gives the terminal to the shell and stops the process (Ctrl-Z); when the shell's
    /// `fg` continues it, takes the terminal back and repaints everything.
    public func suspend() {
        guard isActive else { return }
        var current = sigaction()
        sigaction(SIGTSTP, nil, &current)
        // A shell without job control ignores stops for its jobs: nothing could resume one.
        guard unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) else { return }
        Self.shutDownCurses()
        var stop = sigaction()
        stop.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(SIGTSTP, &stop, nil)
        raise(SIGTSTP)
        sigaction(SIGTSTP, &current, nil)
        enterProgramModes()
        previousFrame = nil
        writer.reset()
    }

    /// Leaves curses as a suspend does, runs `work` (the editor, on the terminal as the shell
    /// had it), then takes the terminal back and repaints everything.
    public func runOutside(_ work: () -> Void) {
        guard isActive else { return work() }
        Self.shutDownCurses()
        work()
        enterProgramModes()
        previousFrame = nil
        writer.reset()
    }

    /// Leaves the alternate screen, turns bracketed paste and the mouse off and restores
    /// the tty modes and the default signal handlers; the terminal is not drawn to afterwards.
    public func restore() {
        guard isActive else { return }
        isActive = false
        terminal_resize_stops_waking()
        Self.shutDownCurses()
        for signalNumber in Self.handledSignals {
            signal(signalNumber, SIG_DFL)
        }
    }

    /// Program mode (again, after a suspend): ncurses's modes through a refresh, then
    /// bracketed paste and the mouse, which ncurses does not know of.
    private func enterProgramModes() {
        wnoutrefresh(window)
        doupdate()
        Self.writeDirectly(Array((Self.enableModes + (Self.usesMouse ? Self.enableMouse : "")).utf8))
    }

    /// Safe to call at any time, from a signal handler or at exit included: it does nothing
    /// unless ncurses currently owns the terminal.
    private static func shutDownCurses() {
        guard cncurses_is_active() else { return }
        writeDirectly(Array((disableModes + (usesMouse ? disableMouse : "") + "\u{1B}[0m").utf8))
        endwin()
    }

    /// What standard input says after a read gave nothing before its timeout.
    private enum WaitingInput {
        /// The terminal hung up, or the descriptor is gone.
        case hungUp
        /// Something is said to be waiting: more input, or the end of it.
        case readable
        /// Nothing: a signal cut the wait short.
        case none
    }

    private enum WaitOutcome { case input, woken, timedOut }

    /// Waits until the terminal has input (or hung up, or a signal came) or `wake` is
    /// woken, at most `milliseconds` (forever when negative).
    private static func waitForInput(or wake: TerminalWake, milliseconds: Int) -> WaitOutcome {
        var descriptors = [
            pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, 2, Int32(clamping: milliseconds))
        if ready < 0 { return .input }
        if descriptors[1].revents != 0 { wake.drain() }
        if descriptors[0].revents != 0 { return .input }
        return ready == 0 ? .timedOut : .woken
    }

    private static func waitingInput() -> WaitingInput {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return .none }
        if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .hungUp }
        return descriptor.revents & Int16(POLLIN) != 0 ? .readable : .none
    }

    /// Writes bytes straight to the terminal, all of them, retrying after a signal.
    private static func writeDirectly(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Descriptor.writeAll($0, to: STDOUT_FILENO) }
    }

    /// SIGINT, SIGTERM and SIGHUP leave through CTerminalExit's async-signal-safe handler,
    /// which gives the terminal back without calling into Swift or ncurses.
    private static func installSignalHandlers() {
        for signalNumber in handledSignals {
            terminal_exit_on(signalNumber)
        }
    }

    /// What that handler writes: the app's own modes off, then terminfo's `rmcup` (leave
    /// the alternate screen) and `cnorm` (show the cursor).
    private static func prepareSignalExit(mouse: Bool) {
        var bytes = Array((disableModes + (mouse ? disableMouse : "") + "\u{1B}[0m").utf8)
        for capability in ["rmcup", "cnorm"] {
            guard let text = tigetstr(capability), Int(bitPattern: text) != -1 else { continue }
            bytes += Array(String(cString: text).utf8)
        }
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { terminal_exit_prepare($0.baseAddress, $0.count) }
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
}
