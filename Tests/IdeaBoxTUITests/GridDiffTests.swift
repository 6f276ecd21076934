import IdeaBoxTUI
import Testing

@Suite struct GridDiffTests {
    private func grid(_ rows: [String], columns: Int = 6) -> CellGrid {
        var grid = CellGrid(rows: rows.count, columns: columns)
        for (row, text) in rows.enumerated() {
            grid.put(text, row: row, column: 0)
        }
        return grid
    }

    private func texts(_ run: CellRun) -> [String] {
        run.cells.map(\.text)
    }

    @Test func withoutAPreviousFrameEveryRowIsOneRun() {
        let next = grid(["ab", "中"], columns: 3)
        let runs = GridDiff.runs(from: nil, to: next)
        #expect(runs.map(\.row) == [0, 1])
        #expect(runs.map(\.column) == [0, 0])
        #expect(runs.map(texts) == [["a", "b", " "], ["中", "", " "]])
    }

    @Test func aFrameOfAnotherSizeIsRedrawnWhole() {
        let runs = GridDiff.runs(from: grid(["ab"], columns: 2), to: grid(["ab"], columns: 3))
        #expect(runs == [CellRun(row: 0, column: 0, cells: [Cell(text: "a"), Cell(text: "b"), .blank])])
    }

    @Test func identicalFramesHaveNoRuns() {
        #expect(GridDiff.runs(from: grid(["abc", "中文"]), to: grid(["abc", "中文"])).isEmpty)
    }

    @Test func separateChangesAreSeparateRuns() {
        let runs = GridDiff.runs(from: grid(["abcdef", "xyz"]), to: grid(["aXcdYY", "xyz"]))
        #expect(runs.map(\.column) == [1, 4])
        #expect(runs.map(texts) == [["X"], ["Y", "Y"]])
    }

    @Test func aStyleChangeIsAChange() {
        var next = grid(["abc"])
        next.put("b", row: 0, column: 1, style: CellStyle(underline: true))
        let runs = GridDiff.runs(from: grid(["abc"]), to: next)
        #expect(runs == [CellRun(row: 0, column: 1, cells: [Cell(text: "b", style: CellStyle(underline: true))])])
    }

    @Test func aChangedWideCharacterKeepsItsContinuation() {
        let runs = GridDiff.runs(from: grid(["a中b"]), to: grid(["a文b"]))
        #expect(runs.map(\.column) == [1])
        #expect(runs.map(texts) == [["文", ""]])
    }

    @Test func narrowCharactersReplacingAWideOne() {
        let runs = GridDiff.runs(from: grid(["中x"]), to: grid(["abx"]))
        #expect(runs.map(texts) == [["a", "b"]])
    }

    @Test func aWideCharacterReplacingNarrowOnes() {
        let runs = GridDiff.runs(from: grid(["abcd"]), to: grid(["a👍🏽d"]))
        #expect(runs.map(\.column) == [1])
        #expect(runs.map(texts) == [["👍🏽", ""]])
    }
}
