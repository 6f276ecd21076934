import IdeaBoxFoundation
import IdeaBoxViewModels

/// The app's main loop: reads keys, feeds them to the model, and draws a frame when
/// something changed; between keys it ticks, which notices other processes' changes.
public struct TerminalApp {
    /// How long to wait for a key before ticking.
    static let tickMilliseconds = 250

    private let app: AppModel
    private let terminal: any TerminalBackend
    private let editor: ExternalEditor

    /// A loop driving `app` on `terminal`, opening `editor` for `E` and Ctrl-X Ctrl-E.
    public init(app: AppModel, terminal: any TerminalBackend, editor: ExternalEditor) {
        self.app = app
        self.terminal = terminal
        self.editor = editor
    }

    /// Runs until the user quits or the input ends, then gives the terminal back.
    public func run() {
        defer { terminal.restore() }
        var decoder = KeyDecoder()
        var size = terminal.size
        app.resize(rows: size.rows, columns: size.columns)
        app.tick()
        draw()
        let clock = ContinuousClock()
        var lastTick = clock.now
        while !app.wantsToQuit {
            let inputs = terminal.readInput(timeoutMilliseconds: Self.tickMilliseconds)
            let inputEnded = inputs.last == .endOfInput
            var needsDrawing = false
            for key in decoder.decode(inputs) {
                // A key typed just after a resize comes in the same batch as the resize's
                // own key: it must meet the screen at its new size (`p` at 80 columns opens
                // the preview full screen; at 120 it toggles the pane beside the list).
                if key == .resize { takeNewSize(&size) }
                app.handle(key)
                if let text = app.takeClipboardRequest() {
                    app.clipboardCopied(terminal.copyToClipboard(text))
                }
                needsDrawing = true
                if app.wantsToQuit { return }
                if app.wantsToSuspend {
                    app.resumed()
                    terminal.suspend()
                }
                if let request = app.editorRequest {
                    var outcome = EditorOutcome.unchanged
                    terminal.runOutside { outcome = editor.edit(request.text.fileText, AppModel.editorFileName) }
                    app.finishEditing(outcome)
                }
            }
            if inputEnded { return }
            if takeNewSize(&size) { needsDrawing = true }
            if inputs.isEmpty || clock.now - lastTick > .milliseconds(Self.tickMilliseconds) {
                needsDrawing = app.tick() || needsDrawing
                lastTick = clock.now
            }
            if needsDrawing { draw() }
        }
    }

    /// Gives the model the terminal's size if it is no longer `size`; whether it was.
    @discardableResult
    private func takeNewSize(_ size: inout TerminalSize) -> Bool {
        guard terminal.size != size else { return false }
        size = terminal.size
        app.resize(rows: size.rows, columns: size.columns)
        return true
    }

    private func draw() {
        let frame = AppScreen.render(app)
        terminal.draw(frame.grid, cursor: frame.cursor)
    }
}
