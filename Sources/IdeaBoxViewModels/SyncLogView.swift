import IdeaModel
import IdeaStore

/// The sync log overlay (`l`): the newest log lines and conflicts, a scroll position, and
/// the "overwrite remote" questions.
public struct SyncLogView: Sendable, Equatable {
    /// What an "overwrite the remote with this device's data" question is about.
    public enum Overwrite: Sendable, Equatable {
        /// The ideas (`O`).
        case ideas
        /// A sync companion's data, by its name (`L`: the library folder).
        case companion(String)
    }

    /// The sync log, newest first.
    public var entries: [SyncLogEntry] = []
    /// The conflict log, newest first.
    public var conflicts: [ConflictRecord] = []
    /// How many lines are scrolled off the top.
    public var scroll = 0
    /// What the devices named in the lines are called.
    public var deviceNames = DeviceNames(thisDevice: "")
    /// The "overwrite the remote? y/n" question the overlay is asking, if any.
    public var confirmingOverwrite: Overwrite?

    /// An empty log, scrolled to its top.
    public init() {}

    /// The lines a conflict takes: when and what, the winner, the loser.
    public static let linesPerConflict = 3

    /// The overlay's lines: the log (or its empty notice), a blank line, the conflicts
    /// heading and the conflicts (or their empty notice).
    public var lineCount: Int { max(1, entries.count) + 2 + max(1, conflicts.count * Self.linesPerConflict) }

    /// The first conflict at or below the top of the view (the last conflict, if the view is
    /// past them all); nil when there is none.
    public var topConflict: ConflictRecord? {
        guard !conflicts.isEmpty else { return nil }
        let firstConflictLine = max(1, entries.count) + 2
        let index = max(0, min(conflicts.count - 1, (scroll - firstConflictLine + Self.linesPerConflict - 1) / Self.linesPerConflict))
        return conflicts[index]
    }

    /// What a key asks of the app, beyond scrolling and asking.
    public enum Outcome: Sendable, Equatable {
        /// Nothing: the overlay scrolled, asked, or the key does nothing here.
        case none
        /// Close the overlay.
        case close
        /// Close the overlay and quit (Ctrl-C).
        case quit
        /// `h`: open the history of the top conflict.
        case openHistoryOfTopConflict
        /// `y` to an overwrite question: overwrite the remote.
        case overwrite(Overwrite)
    }

    /// A key, the overlay's rows wrapped in `text`'s words to `width` columns, `visibleRows`
    /// of them showing: answers the question asked, scrolls, asks one (`O`; `L` when
    /// `libraryCompanion` names the library folder's companion), or says what else it asks.
    public mutating func handle(_ key: Key, text: UIText, width: Int, visibleRows: Int, libraryCompanion: () -> String?) -> Outcome {
        if let overwrite = confirmingOverwrite {
            confirmingOverwrite = nil
            return key == .char("y") || key == .char("Y") ? .overwrite(overwrite) : .none
        }
        let limit = max(0, rows(in: text, width: width).count - visibleRows)
        if let scrolled = ScrollKeys(text.keys.list).scrolled(min(scroll, limit), by: key, page: visibleRows, limit: limit) {
            scroll = scrolled
            return .none
        }
        switch key {
        case .escape, .char("q"), .char("l"), .enter: return .close
        case .ctrl("c"): return .quit
        case .char("h"): return .openHistoryOfTopConflict
        case .char("O"): confirmingOverwrite = .ideas
        case .char("L"): confirmingOverwrite = libraryCompanion().map(Overwrite.companion)
        default: break
        }
        return .none
    }

    /// The overlay's lines in words of `text`, each with how it should stand out: what the
    /// screen draws, so the terminal layer needs none of the store's types.
    public func lines(in text: UIText) -> [Line] {
        var lines: [Line] = []
        if entries.isEmpty {
            lines.append(Line(text.emptySyncLog, .muted))
        }
        for entry in entries {
            let tone: Line.Tone = switch entry.kind {
            case .error: .error
            case .warning, .conflict: .warning
            case .upload, .download, .info: .plain
            }
            lines.append(Line(text.logLine(entry, names: deviceNames), tone))
        }
        lines.append(Line("", .plain))
        lines.append(Line(text.conflictsTitle, .heading))
        if conflicts.isEmpty {
            lines.append(Line(text.noConflicts, .muted))
        }
        for conflict in conflicts {
            lines.append(contentsOf: text.conflictLines(conflict, names: deviceNames).map { Line($0, .plain) })
        }
        return lines
    }

    /// The overlay's lines wrapped to `width` columns, as the screen draws them: a line too
    /// long goes on in the rows below it, indented, and is never cut.
    public func rows(in text: UIText, width: Int) -> [Line] {
        let width = max(8, width)
        return lines(in: text).flatMap { line -> [Line] in
            guard TextWidth.width(of: line.text) > width else { return [line] }
            let first = TextWidth.wrap(line.text, toWidth: width)
            guard let head = first.first else { return [line] }
            let rest = line.text.dropFirst(head.range.count).drop(while: { $0 == " " })
            let continued = TextWidth.wrap(String(rest), toWidth: width - 2).map { Line("  " + $0.text, line.tone) }
            return [Line(head.text, line.tone)] + continued
        }
    }

    /// One line of the overlay.
    public struct Line: Sendable, Equatable {
        /// How a line stands out.
        public enum Tone: Sendable, Equatable {
            case plain, muted, heading, warning, error
        }

        /// The words.
        public var text: String
        /// How they stand out.
        public var tone: Tone

        /// A line of `text` in `tone`.
        public init(_ text: String, _ tone: Tone) {
            self.text = text
            self.tone = tone
        }
    }
}
