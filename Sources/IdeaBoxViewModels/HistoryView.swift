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
