import ArgumentParser
import ChildProcess
import EmbeddedRemote
import Foundation
import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaStore

/// `ideabox-bench tui`: the full-screen app at 100,000 ideas. Keystroke to frame is the
/// key applied to the model, the frame rendered, diffed against the previous one and
/// turned into the bytes for the terminal (everything the main loop does but the one
/// write); launch is measured both in-process and as the real binary in tmux.
struct TUIBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui", abstract: "Benchmark the full-screen app at 100,000 ideas: keystroke to frame, launch, and memory.")

    @OptionGroup var corpus: CorpusOptions
    @Option(help: "How many launches, in-process and of the real binary in tmux.") var launches = 20
    @Option(help: "Screen rows.") var rows = 24
    @Option(help: "Screen columns (120 or more shows the preview pane).") var columns = 80
    @Option(help: "The order of All Ideas: created, updated or title.") var sort = "created"
    @Flag(help: "Hide the preview pane (p) on a screen wide enough for it.") var hidePreview = false
    @Option(help: "How long to scroll and search in the real binary in tmux before reading its peak memory (0 skips it).")
    var memorySeconds = 60
    @Option(help: "How many ideas to select (v), delete and undo, once, at the end (0 skips it; the ideas come back).")
    var undoRows = 0

    func validate() throws {
        guard IdeaOrder.Key(rawValue: sort) != nil else { throw ValidationError("--sort must be created, updated or title") }
    }

    func run() throws {
        let repository = try corpus.openRepository()
        let counts = try repository.counts()
        print("corpus: \(counts.all) ideas (\(counts.completed) completed) in \(corpus.root.path); screen \(columns)x\(rows); sort \(sort)")
        try measureKeystrokes(repository)
        try measureHeadlessLaunch()
        try measureLaunchInTmux()
        try measureMemoryInTmux()
    }

    // MARK: Keystroke to frame

    private func measureKeystrokes(_ repository: IdeaRepository) throws {
        // The bench's order, whatever an earlier run of the app left in the corpus.
        try repository.setListOrder(IdeaOrder(IdeaOrder.Key(rawValue: sort) ?? .created))
        let app = AppModel(repository: repository, language: .english, clock: .system)
        try app.start()
        var screen = Screen(app: app, rows: rows, columns: columns)
        if hidePreview { screen.press(.char("p")) }
        print("preview pane: \(app.showsPreviewPane ? "open" : "closed"); order: \(app.text.orderName(app.listOrder))")
        var results: [Measurement] = []

        var down = Measurement(name: "j (down), \(corpus.runs * 5) presses from the top")
        for _ in 0..<corpus.runs * 5 { screen.press(.char("j"), into: &down) }
        results.append(down)

        var paging = Measurement(name: "PgDn then PgUp, \(corpus.runs) each")
        screen.press(.home)
        for _ in 0..<corpus.runs { screen.press(.pageDown, into: &paging) }
        for _ in 0..<corpus.runs { screen.press(.pageUp, into: &paging) }
        results.append(paging)

        var ends = Measurement(name: "End / Home, alternately")
        for run in 0..<corpus.runs { screen.press(run.isMultiple(of: 2) ? .end : .home, into: &ends) }
        results.append(ends)

        var tabs = Measurement(name: "2 then 1 (Completed, All Ideas), \(corpus.runs) each")
        for _ in 0..<corpus.runs {
            screen.press(.char("2"), into: &tabs)
            screen.press(.char("1"), into: &tabs)
        }
        results.append(tabs)

        var render = Measurement(name: "render alone (no key), list at the top")
        var diff = Measurement(name: "diff and terminal bytes alone, one row moved")
        screen.press(.home)
        for _ in 0..<corpus.runs {
            render.time { _ = AppScreen.render(app) }
        }
        let top = AppScreen.render(app).grid
        screen.press(.char("j"))
        let moved = AppScreen.render(app).grid
        for _ in 0..<corpus.runs {
            var writer = Self.writer()
            diff.time { _ = writer.frame(from: top, to: moved, screen: TerminalSize(rows: rows, columns: columns), cursor: nil) }
        }
        results.append(render)
        results.append(diff)

        var idle = Measurement(name: "tick with nothing changed (every 250 ms)")
        for _ in 0..<corpus.runs {
            idle.time { _ = app.tick() }
        }
        results.append(idle)

        screen.press(.char("/"))
        var backspace = Measurement(name: "search: Backspace")
        var exactCount = Measurement(name: "search: the exact count, inline here (beside the keys in the app) + frame")
        let rounds = max(1, corpus.runs / 10)
        for query in ["workshop", "靈感", "資料庫"] {
            var typing = Measurement(name: "search: typing \(query), key by key")
            for _ in 0..<rounds {
                for character in query { screen.press(.char(character), into: &typing) }
                exactCount.time { screen.tick() }
                for _ in query { screen.press(.backspace, into: &backspace) }
                screen.tick()
            }
            results.append(typing)
        }
        results.append(backspace)
        results.append(exactCount)
        print("keystroke to frame (handle + render + diff), \(columns)x\(rows):")
        for result in results { print(result.report) }
        screen.press(.escape)
        screen.press(.char("1"))
        try measureUndo(&screen)
    }

    /// `v` and PgDn until `undoRows` ideas are selected, `d`, `y`, then `u`: the delete and
    /// its undo, each from the key to the frame, once (the ideas come back).
    private func measureUndo(_ screen: inout Screen) throws {
        guard undoRows > 0 else { return }
        let app = screen.app
        screen.press(.home)
        screen.press(.char("v"))
        while (app.selectedRows?.count ?? 0) < undoRows, app.allIdeas.selectedIndex < app.allIdeas.totalCount - 1 {
            screen.press(.pageDown)
        }
        while (app.selectedRows?.count ?? 0) > undoRows { screen.press(.up) }
        let selected = app.selectedRows?.count ?? 0
        let before = app.counts.all
        var delete = Measurement(name: "delete of \(selected) selected ideas (d, y), key to frame")
        screen.press(.char("d"))
        screen.press(.char("y"), into: &delete)
        guard app.counts.all == before - selected else { throw ValidationError("the delete left \(app.counts.all) of \(before)") }
        var undo = Measurement(name: "undo of that delete (u), key to frame")
        screen.press(.char("u"), into: &undo)
        guard app.counts.all == before else { throw ValidationError("the undo left \(app.counts.all) of \(before)") }
        print(delete.report)
        print(undo.report)
    }

    // MARK: Launch

    /// Open the database, start the model and draw the first frame, in this process:
    /// what `ideabox` does between parsing its arguments and ncurses' first `doupdate`.
    private func measureHeadlessLaunch() throws {
        var launch = Measurement(name: "launch in-process: open + start + 1st frame")
        for _ in 0..<launches {
            try launch.time {
                let location = try DataLocation(root: corpus.root)
                let database = try IdeaDatabase.open(
                    directory: location.profileDirectory,
                    firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
                let app = AppModel(repository: database.repository(clock: .system, ids: .random),
                                   language: .english, clock: .system)
                try app.start()
                app.resize(rows: rows, columns: columns)
                app.tick()
                var writer = Self.writer()
                _ = writer.frame(from: nil, to: AppScreen.render(app).grid, screen: TerminalSize(rows: rows, columns: columns), cursor: nil)
            }
        }
        print(launch.report)
    }

    /// The real binary in a detached tmux pane: from `respawn-pane` (tmux forks and execs
    /// `ideabox`) until `capture-pane` shows the tab bar of the first frame. Polling adds
    /// the time of one `capture-pane` (a few ms) at most.
    private func measureLaunchInTmux() throws {
        // Launches measure the app, not an initial sync of the whole corpus: the corpus's
        // device is signed out, so the app starts in local mode.
        try SimulatedCloud.open(directory: corpus.root, clock: .system).network.signOut(device: DataLocation.defaultProfile)
        let binary = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("skipped the launch in tmux: build the ideabox product first (\(binary.path))")
            return
        }
        guard let tmux = Tmux(socket: "ideabox-bench-\(getpid())") else {
            print("skipped the launch in tmux: tmux is not installed")
            return
        }
        defer { tmux.killServer() }
        try tmux.run([
            "-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", String(columns), "-y", String(rows),
            "sleep 3600",
        ])
        try tmux.run(["set-option", "-g", "remain-on-exit", "on"])
        let command = "env LANG=C.UTF-8 '\(binary.path)' --data-dir '\(corpus.root.path)'"
        let clock = ContinuousClock()
        var launch = Measurement(name: "launch in tmux: process start to 1st frame")
        var quit = Measurement(name: "quit in tmux: q to process exit")
        for _ in 0..<launches {
            let start = clock.now
            try tmux.run(["respawn-pane", "-k", "-t", "bench", command])
            try tmux.waitUntil(timeout: .seconds(10)) {
                try tmux.run(["capture-pane", "-p", "-t", "bench"]).contains("All Ideas (")
            }
            launch.record(clock.now - start)
            let quitting = clock.now
            try tmux.run(["send-keys", "-t", "bench", "q"])
            try tmux.waitUntil(timeout: .seconds(10)) {
                try tmux.run(["display-message", "-p", "-t", "bench", "#{pane_dead}"]).hasPrefix("1")
            }
            quit.record(clock.now - quitting)
        }
        print(launch.report)
        print(quit.report)
    }
}

extension TUIBenchmark {
    /// The real binary's peak resident memory (`VmHWM`) after its first frame, and after
    /// `memorySeconds` of what a person does all day: moving down, paging, jumping to the
    /// ends, and searches typed key by key and erased, in English and in Chinese.
    private func measureMemoryInTmux() throws {
        guard memorySeconds > 0 else { return }
        let binary = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: binary.path), let tmux = Tmux(socket: "ideabox-bench-memory-\(getpid())") else {
            print("skipped the memory of the app in tmux: it needs tmux and the ideabox product")
            return
        }
        defer { tmux.killServer() }
        let command = "env LANG=C.UTF-8 '\(binary.path)' --data-dir '\(corpus.root.path)'"
        try tmux.run(["-f", "/dev/null", "new-session", "-d", "-s", "memory", "-x", String(columns), "-y", String(rows), command])
        try tmux.waitUntil(timeout: .seconds(10)) {
            try tmux.run(["capture-pane", "-p", "-t", "memory"]).contains("All Ideas (")
        }
        let pid = try tmux.run(["display-message", "-p", "-t", "memory", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let afterFirstFrame = try Self.peakMemory(pid: pid)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(memorySeconds)
        var rounds = 0
        while clock.now < end {
            try tmux.run(["send-keys", "-t", "memory"] + Array(repeating: "j", count: 40))
            try tmux.run(["send-keys", "-t", "memory", "NPage", "NPage", "NPage", "End", "Home", "NPage", "PPage", "G", "g"])
            try tmux.run(["send-keys", "-t", "memory", "/"] + "workshop".map(String.init) + Array(repeating: "BSpace", count: 8))
            for word in ["靈感", "資料庫"] {
                try tmux.run(["send-keys", "-t", "memory", "-l", word])
                try tmux.run(["send-keys", "-t", "memory"] + Array(repeating: "BSpace", count: word.count))
            }
            try tmux.run(["send-keys", "-t", "memory", "Escape", "1"])
            rounds += 1
        }
        let afterScrolling = try Self.peakMemory(pid: pid)
        try tmux.run(["send-keys", "-t", "memory", "q"])
        print(String(format: "memory in tmux: peak RSS %.1f MiB after the first frame, %.1f MiB after %d s of scrolling and searching (%d rounds)",
                     afterFirstFrame, afterScrolling, memorySeconds, rounds))
    }

    /// `VmHWM` of process `pid`, in MiB (the kernel's "kB" is KiB).
    /// A writer as the app makes one for a color terminal, measuring scalars by TextWidth.
    static func writer() -> TerminalWriter {
        TerminalWriter(usesColors: true, hasBrightColors: true, scalarWidth: { TextWidth.width(of: $0) })
    }

    private static func peakMemory(pid: String) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else {
            throw ValidationError("no VmHWM in /proc/\(pid)/status")
        }
        return kilobytes / 1024
    }
}

/// The app's model on a screen of fixed size, with the last frame kept so each key is
/// measured the way the main loop draws it: handle, render, diff and bytes.
private struct Screen {
    let app: AppModel
    private var previous: CellGrid
    private var writer = TUIBenchmark.writer()

    init(app: AppModel, rows: Int, columns: Int) {
        self.app = app
        app.resize(rows: rows, columns: columns)
        app.tick()
        previous = AppScreen.render(app).grid
    }

    /// Applies `key` and draws, timing it into `measurement`.
    mutating func press(_ key: Key, into measurement: inout Measurement) {
        measurement.time { press(key) }
    }

    /// Applies `key` and draws.
    mutating func press(_ key: Key) {
        app.handle(key)
        draw()
    }

    /// A tick of the main loop, drawn when it changed something.
    mutating func tick() {
        if app.tick() { draw() }
    }

    private mutating func draw() {
        let next = AppScreen.render(app).grid
        _ = writer.frame(from: previous, to: next, screen: TerminalSize(rows: next.rows, columns: next.columns), cursor: nil)
        previous = next
    }
}

/// A private tmux server for the launch timings.
private struct Tmux {
    let executable: URL
    let socket: String

    /// tmux from `PATH`, or nil when it is not installed.
    init?(socket: String) {
        let folders = ProcessInfo.processInfo.environment["PATH", default: "/usr/bin:/bin"].split(separator: ":")
        guard let found = folders.map({ URL(fileURLWithPath: String($0)).appendingPathComponent("tmux") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { return nil }
        executable = found
        self.socket = socket
    }

    /// Runs `tmux -L socket arguments…` and returns its output; fails on a non-zero exit.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let status = try ChildProcess.runToEnd(
            executable.path, ["-u", "-L", socket] + arguments, environment: ProcessInfo.processInfo.environment,
            output: outputFile.path, error: "/dev/null")
        guard status == 0 else {
            throw ValidationError("tmux \(arguments.joined(separator: " ")) failed (exit status \(status))")
        }
        return try String(contentsOf: outputFile, encoding: .utf8)
    }

    /// Polls `condition` (itself a tmux command, so the polling rate is tmux's) until true.
    func waitUntil(timeout: Duration, _ condition: () throws -> Bool) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while try !condition() {
            guard clock.now < deadline else { throw ValidationError("tmux: nothing after \(timeout)") }
        }
    }

    /// Stops the server and whatever runs in it, and removes the socket tmux leaves behind.
    func killServer() {
        _ = try? run(["kill-server"])
        let folder = ProcessInfo.processInfo.environment["TMUX_TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(folder)/tmux-\(getuid())/\(socket)")
    }
}
