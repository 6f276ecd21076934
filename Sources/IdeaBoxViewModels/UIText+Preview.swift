import IdeaBoxFoundation
import IdeaStore

/// The preview pane and the sort orders.
extension UIText {
    /// The preview's heading.
    public var previewTitle: String { text("Preview", "預覽") }
    /// The full-screen preview's footer.
    public var previewFooter: String { text("↑↓ PgUp PgDn scroll · Esc back", "↑↓ PgUp PgDn 捲動 · Esc 返回") }
    /// The preview's detail lines: done, created, updated, device.
    public func previewDetails(isCompleted: Bool, created: Timestamp, updated: Timestamp, device: String, now: Timestamp) -> [String] {
        let when = { (time: Timestamp) in "\(localDate(time)) \(clockTime(time)) (\(age(of: time, now: now)))" }
        return [
            isCompleted ? text("[x] done", "[x] 已完成") : text("[ ] not done", "[ ] 未完成"),
            text("Created  ", "建立於　") + when(created),
            text("Changed  ", "變更於　") + when(updated),
            text("Device   ", "裝置　　") + device,
        ]
    }

    /// The name of a list order, for the bar under the tabs and the status line.
    public func orderName(_ order: IdeaOrder) -> String {
        let name = switch order.key {
        case .created: order.isReversed ? text("oldest first", "最舊的在前") : text("newest first", "最新的在前")
        case .updated: order.isReversed ? text("changed longest ago first", "最久未變更的在前") : text("last changed first", "最近變更的在前")
        case .title: order.isReversed ? text("title Z–A", "標題 Z–A") : text("title A–Z", "標題 A–Z")
        }
        return name
    }
    /// The bar under the tabs: the order the list is in.
    public func sortLabel(_ order: IdeaOrder) -> String {
        text("Sort: \(orderName(order))", "排序：\(orderName(order))")
    }
    /// `S` changed the order.
    public func sortedBy(_ order: IdeaOrder) -> String {
        text("Sorted: \(orderName(order))", "排序：\(orderName(order))")
            + keyed(.cycleOrder) { text(" (\($0) for the next order)", "（按 \($0) 換下一種）") }
    }
    /// `S` on the Search tab.
    public var searchKeepsItsOrder: String {
        text("Search results are always newest first", "搜尋結果固定最新的在前")
            + keyed(.cycleOrder) { text("; \($0) sorts All Ideas and Completed", "；\($0) 用於全部靈感與已完成") } + text(".", "。")
    }
}
