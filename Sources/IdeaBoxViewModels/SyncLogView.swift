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

    /// The lines a conflict takes: when and what, the winner, the loser.
    public static let linesPerConflict = 3

    /// The overlay's lines: the log (or its empty notice), a blank line, the conflicts
    /// heading and the conflicts (or their empty notice).
    public var lineCount: Int { max(1, entries.count) + 2 + max(1, conflicts.count * Self.linesPerConflict) }

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
