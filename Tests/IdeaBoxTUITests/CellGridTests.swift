@testable import IdeaBoxTUI
import Testing

@Suite struct CellGridTests {
    @Test func newGridIsBlank() {
        let grid = CellGrid(rows: 2, columns: 3)
        #expect(grid[1, 2] == .blank)
        #expect(grid.renderText() == "\n")
    }

    @Test func putWritesTextAndReturnsTheNextColumn() {
        var grid = CellGrid(rows: 1, columns: 10)
        #expect(grid.put("abc", row: 0, column: 2) == 5)
        #expect(grid.renderText() == "  abc")
    }

    @Test func wideCharactersTakeACellAndAContinuation() {
        var grid = CellGrid(rows: 1, columns: 6)
        let style = CellStyle(bold: true)
        #expect(grid.put("中文", row: 0, column: 1, style: style) == 5)
        #expect(grid[0, 1] == Cell(text: "中", style: style))
        #expect(grid[0, 2].isContinuation)
        #expect(grid[0, 2].style == style)
        #expect(grid[0, 3].text == "文")
        #expect(grid.renderText() == " 中文")
    }

    @Test func emojiClustersTakeTwoCells() {
        var grid = CellGrid(rows: 1, columns: 20)
        #expect(grid.put("👍🏽👩‍💻🇺🇸❤️!", row: 0, column: 0) == 9)
        #expect(grid[0, 0].text == "👍🏽")
        #expect(grid[0, 2].text == "👩‍💻")
        #expect(grid[0, 4].text == "🇺🇸")
        #expect(grid[0, 6].text == "❤️")
        #expect(grid[0, 7].isContinuation)
        #expect(grid.renderText() == "👍🏽👩‍💻🇺🇸❤️!")
    }

    @Test func combiningMarksStayWithTheirBase() {
        var grid = CellGrid(rows: 1, columns: 4)
        #expect(grid.put("e\u{301}x", row: 0, column: 0) == 2)
        #expect(grid[0, 0].text == "e\u{301}")
    }

    @Test func clustersWithoutWidthAreSkipped() {
        var grid = CellGrid(rows: 1, columns: 4)
        #expect(grid.put("a\tb\u{7}", row: 0, column: 0) == 2)
        #expect(grid.renderText() == "ab")
    }

    @Test func putStopsBeforeAWideCharacterThatDoesNotFit() {
        var grid = CellGrid(rows: 1, columns: 8)
        #expect(grid.put("ab中c", row: 0, column: 0, maxWidth: 3) == 2)
        #expect(grid.renderText() == "ab")
        #expect(grid.put("xyz中", row: 0, column: 4) == 7)
        #expect(grid.renderText() == "ab  xyz")
    }

    @Test func putClipsAtTheGridEdges() {
        var grid = CellGrid(rows: 2, columns: 4)
        grid.put("abcdef", row: 0, column: 1)
        grid.put("xyz", row: 1, column: -1)
        grid.put("hidden", row: 2, column: 0)
        #expect(grid.renderText() == " abc\nyz")
    }

    @Test func overwritingTheLeftHalfBlanksTheRightHalf() {
        var grid = CellGrid(rows: 1, columns: 4)
        grid.put("中", row: 0, column: 0)
        grid.put("x", row: 0, column: 0)
        #expect(grid[0, 1] == .blank)
        #expect(grid.renderText() == "x")
    }

    @Test func overwritingTheRightHalfBlanksTheLeftHalf() {
        var grid = CellGrid(rows: 1, columns: 4)
        let style = CellStyle(reverse: true)
        grid.put("中", row: 0, column: 0, style: style)
        grid.put("x", row: 0, column: 1)
        #expect(grid[0, 0] == Cell(text: " ", style: style))
        #expect(grid.renderText() == " x")
    }

    @Test func aWideCharacterAcrossTwoOthersBlanksBothOuterHalves() {
        var grid = CellGrid(rows: 1, columns: 6)
        grid.put("中文", row: 0, column: 0)
        grid.put("字", row: 0, column: 1)
        #expect(grid.renderText() == " 字")
        #expect(grid[0, 3] == .blank)
        #expect(!grid[0, 3].isContinuation)
    }

    @Test func fillRepeatsACharacterWithinTheWidth() {
        var grid = CellGrid(rows: 2, columns: 7)
        grid.fill(row: 0, column: 1, width: 3, character: "-")
        grid.fill(row: 1, column: 0, width: 5, character: "中")
        #expect(grid.renderText() == " ---\n中中")
    }

    @Test func fillRowsPaintsWholeRows() {
        var grid = CellGrid(rows: 3, columns: 2)
        grid.put("ab", row: 1, column: 0)
        let style = CellStyle(reverse: true, color: .accent)
        grid.fillRows(1..<3, style: style)
        #expect(grid[1, 0] == Cell(text: " ", style: style))
        #expect(grid[2, 1] == Cell(text: " ", style: style))
        #expect(grid[0, 0] == .blank)
        #expect(grid.renderText() == "\n\n")
    }

    @Test func drawBoxDrawsAFrameWithATitle() {
        var grid = CellGrid(rows: 4, columns: 12)
        grid.drawBox(top: 0, left: 1, height: 4, width: 10, title: "搜尋ideas")
        #expect(grid.renderText() == """
             ┌ 搜尋i… ┐
             │        │
             │        │
             └────────┘
            """)
    }

    @Test func drawBoxWithoutTitleAndTooSmallBoxes() {
        var grid = CellGrid(rows: 3, columns: 4)
        grid.drawBox(top: 0, left: 0, height: 2, width: 3)
        grid.drawBox(top: 2, left: 0, height: 1, width: 4)
        #expect(grid.renderText() == "┌─┐\n└─┘\n")
    }

    @Test func renderTextTrimsTrailingSpacesOnly() {
        var grid = CellGrid(rows: 2, columns: 6)
        grid.put(" a b", row: 0, column: 0)
        grid.put("x", row: 1, column: 5)
        #expect(grid.renderText() == " a b\n     x")
    }
}
