import Foundation
import IdeaModel
import IdeaStore

/// The history overlay (`h`): every version of one idea this device knows, the current one
/// first, a cursor on one of them, and `r` to restore it.
public struct HistoryView: Sendable, Equatable {
    /// The idea.
    public var ideaId: UUID
    /// Its title when the overlay opened (or its last known title, for a deleted idea).
    public var title: String
    /// Its versions, the current one first, then newest first.
    public var versions: [IdeaVersion] = []
    /// The version under the cursor.
    public var selected = 0
    /// How many lines are scrolled off the top.
    public var scroll = 0
    /// What the devices that wrote the versions are called.
    public var deviceNames = DeviceNames(thisDevice: "")

    /// The lines each version takes: what and when, the title, the done flag and description.
    public static let linesPerVersion = 3

    /// The overlay for `ideaId`, titled `title`.
    public init(ideaId: UUID, title: String) {
        self.ideaId = ideaId
        self.title = title
    }

    /// The version under the cursor, if any.
    public var selectedVersion: IdeaVersion? {
        versions.indices.contains(selected) ? versions[selected] : nil
    }

    /// What a key asks of the app, beyond moving the cursor.
    public enum Outcome: Sendable, Equatable {
        /// Nothing: the cursor moved, or the key does nothing here.
        case none
        /// `r`: make the version under the cursor current.
        case restore
        /// Close the overlay.
        case close
        /// Close the overlay and quit (Ctrl-C).
        case quit
    }

    /// A key, `visibleRows` lines showing: moves the cursor (keeping it in view), or says
    /// what else the key asks.
    public mutating func handle(_ key: Key, visibleRows: Int) -> Outcome {
        let last = max(0, versions.count - 1)
        let page = max(1, visibleRows / Self.linesPerVersion)
        switch key {
        case .up, .char("k"): selected = max(0, selected - 1)
        case .down, .char("j"): selected = min(last, selected + 1)
        case .home, .char("g"): selected = 0
        case .end, .char("G"): selected = last
        case .pageUp: selected = max(0, selected - page)
        case .pageDown: selected = min(last, selected + page)
        case .char("r"): return .restore
        case .escape, .char("q"), .char("h"), .enter: return .close
        case .ctrl("c"): return .quit
        default: return .none
        }
        scrollToSelection(visibleRows: visibleRows)
        return .none
    }

    /// Takes the versions read again, keeping the cursor on the version it was on (or as
    /// near as the list now allows), and the current title.
    public mutating func reload(versions: [IdeaVersion], deviceNames: DeviceNames, visibleRows: Int) {
        let selectedNumber = selectedVersion?.number
        self.versions = versions
        self.deviceNames = deviceNames
        if let current = versions.first, current.number == nil, !current.isDeleted { title = current.title }
        selected = versions.firstIndex { $0.number == selectedNumber } ?? min(selected, max(0, versions.count - 1))
        scrollToSelection(visibleRows: visibleRows)
    }

    /// Scrolls so that the version under the cursor shows whole in `visibleRows` lines.
    mutating func scrollToSelection(visibleRows: Int) {
        let top = selected * Self.linesPerVersion
        let bottom = top + Self.linesPerVersion
        if top < scroll { scroll = top }
        if bottom > scroll + visibleRows { scroll = max(0, bottom - visibleRows) }
    }

    /// The overlay's lines in words of `text`: for each version its heading (the number or
    /// "current", when, which device, why it was replaced and in which fields) and its values.
    public func lines(in text: UIText) -> [SyncLogView.Line] {
        var lines: [SyncLogView.Line] = []
        for (index, version) in versions.enumerated() {
            let marker = index == selected ? "> " : "  "
            lines.append(SyncLogView.Line(marker + text.versionHeading(version, names: deviceNames), index == selected ? .heading : .plain))
            if version.isDeleted {
                lines.append(SyncLogView.Line("    " + text.deletedVersion, .muted))
                lines.append(SyncLogView.Line("", .plain))
            } else {
                lines.append(SyncLogView.Line("    " + text.versionTitle(version), .plain))
                lines.append(SyncLogView.Line("    " + text.versionDetails(version), .muted))
            }
        }
        return lines
    }
}
