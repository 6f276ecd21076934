import IdeaModel
import IdeaStore

/// The history overlay: its title, each version and what restoring says.
extension UIText {
    /// A field's name as the form labels it.
    public func fieldName(_ field: IdeaField) -> String { field.name(in: language) }

    /// The history overlay's title.
    public func historyTitle(_ title: String) -> String { text("History of “\(title)”", "「\(title)」的歷史") }
    /// The history overlay's footer.
    public var historyHints: String {
        text("↑↓ choose  r restore this version  Esc close", "↑↓ 選擇  r 還原這個版本  Esc 關閉")
    }
    /// A version's heading line in the history overlay: which, when, and on which device.
    public func versionHeading(_ version: IdeaVersion, names: DeviceNames) -> String {
        let name = version.number.map { text("version \($0)", "版本 \($0)") } ?? text("current", "目前")
        let time = "\(localDate(version.writtenAt)) \(clockTime(version.writtenAt))"
        var heading = "\(name)  \(time)  \(names.on(version.writtenBy, in: language))"
        if let reason = version.reason {
            heading += "  " + reason.text(in: language)
            if !version.fields.isEmpty {
                let names = version.fields.map(fieldName)
                heading += text(" (\(names.joined(separator: ", ")))", "（\(names.joined(separator: "、"))）")
            }
        }
        return heading
    }
    /// A version's title line in the history overlay.
    public func versionTitle(_ version: IdeaVersion) -> String { text("“\(version.title)”", "「\(version.title)」") }
    /// A version's done flag and description, on one line.
    public func versionDetails(_ version: IdeaVersion) -> String {
        let done = version.isCompleted ? text("[x] done", "[x] 已完成") : text("[ ] not done", "[ ] 未完成")
        let description = version.description.split(whereSeparator: \.isNewline).joined(separator: " ")
        return description.isEmpty ? done : done + " · " + description
    }
    /// A deleted idea's current state in the history overlay.
    public var deletedVersion: String { text("deleted", "已刪除") }
    /// `r` restored a version.
    public func restoredVersion(_ number: Int64, _ title: String) -> String {
        text("Restored version \(number) of “\(title)”", "已還原「\(title)」的版本 \(number)") + toUndo
    }
    /// `r` on the current version.
    public var alreadyCurrent: String { text("This is the current version", "這已是目前的版本") }
    /// `h` with no idea selected, or on a sync log with no conflict.
    public var noHistory: String { text("No idea to show the history of", "沒有可以查看歷史的靈感") }

    /// One side of a conflict: the edit (or delete) and the device it was made on, and when.
    func version(_ idea: Idea?, isThisDevice: Bool, names: DeviceNames) -> String {
        guard let idea else {
            return isThisDevice
                ? text("the delete on this device", "在這台裝置上的刪除") : text("the delete on another device", "在另一台裝置上的刪除")
        }
        let time = "\(localDate(idea.updatedAt)) \(clockTime(idea.updatedAt))"
        let on = names.on(idea.deviceId, in: language)
        return text("the edit \(on) of \(time)", "\(on) \(time) 的編輯")
    }
}
