import Foundation
import ProcessTestSupport
import Testing

/// The preview pane and `S` in the real binary in tmux, as a person meets them: beside the
/// list at 120 columns, full screen at 80 (`Esc` back), and the order named under the tabs.
@Suite("The preview pane and sorting in tmux", .takesTurns)
struct PreviewAndSortTests {
    private static let ideas = [
        ["add", "Banana bread", "-d", "Two ripe bananas, one egg, a cup of flour"],
        ["add", "Apple pie", "-d", "Cinnamon and a lattice top"],
        ["add", "牛奶糖", "-d", "奶奶的做法"],
    ]

    @Test func thePaneSitsBesideTheListAt120AndFillsTheScreenAt80() async throws {
        let session = try await TmuxSession(columns: 120, rows: 24, before: Self.ideas)
        defer { session.close() }
        // Newest first: 牛奶糖 is selected, and the pane beside the list shows it whole.
        try await session.waitFor("the pane beside the list") { screen in
            screen.line(2).hasPrefix(">[ ] 牛奶糖") && Self.pane(screen.line(2)) == "牛奶糖" && Self.pane(screen.line(4)) == "奶奶的做法"
        }
        try await session.press("j")
        try await session.waitFor("the pane following the cursor") { screen in
            screen.line(3).hasPrefix(">[ ] Apple pie") && Self.pane(screen.line(2)) == "Apple pie"
                && Self.pane(screen.line(4)) == "Cinnamon and a lattice top"
        }
        try await session.press("p")
        try await session.waitFor("the pane hidden") { screen in
            !screen.line(2).contains("│") && screen.line(3).hasPrefix(">[ ] Apple pie")
        }

        try await session.resize(columns: 80, rows: 24)
        // `p` only once the app has drawn the list at 80 columns ("just now" back at the right
        // edge, which tmux's cut of the 120-column screen lost): tmux tells the app of a new
        // size after a while of its own, and a key sent before that is read at 120 columns,
        // where `p` shows the pane beside the list again (which at 80 is then hidden).
        try await session.waitFor("the list drawn at 80 columns") { screen in
            screen.line(3).hasPrefix(">[ ] Apple pie") && screen.line(3).hasSuffix("just now") && screen.line(3).count <= 80
        }
        try await session.press("p")
        try await session.waitFor("the preview full screen") { screen in
            screen.contains("Preview") && screen.contains("Apple pie") && screen.contains("Cinnamon and a lattice top")
                && !screen.contains("Banana bread")
        }
        try await session.press("Escape")
        try await session.waitFor("the list back") { screen in
            screen.line(3).hasPrefix(">[ ] Apple pie") && screen.contains("Banana bread")
        }
    }

    /// What row `line` shows in the pane: the text right of the list's border, trimmed.
    private static func pane(_ line: String) -> String? {
        line.split(separator: "│", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func sCyclesTheOrderAndTheBarNamesIt() async throws {
        let session = try await TmuxSession(columns: 80, rows: 24, before: Self.ideas)
        defer { session.close() }
        try await session.waitFor("newest first") { screen in
            screen.line(2).contains("牛奶糖") && screen.line(3).contains("Apple pie") && screen.line(4).contains("Banana bread")
        }
        try await session.press("S")
        try await session.waitFor("last changed first, named") { $0.line(1).contains("Sort: last changed first") }
        try await session.press("S")
        try await session.waitFor("title order, Latin before Chinese, named") { screen in
            screen.line(1).contains("Sort: title")
                && screen.line(2).contains("Apple pie") && screen.line(3).contains("Banana bread") && screen.line(4).contains("牛奶糖")
        }
        try await session.press("S")
        try await session.waitFor("back to newest first, the bar plain") { screen in
            !screen.line(1).contains("Sort:") && screen.line(2).contains("牛奶糖")
        }
    }
}
