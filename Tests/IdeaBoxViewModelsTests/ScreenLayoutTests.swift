import IdeaBoxViewModels
import Testing

/// The screen's geometry, in one place: the parts follow each other without a gap or an
/// overlap on every tab and size the app draws.
@Suite struct ScreenLayoutTests {
    @Test(arguments: AppModel.Tab.allCases, [(24, 80), (10, 40), (40, 120)])
    func thePartsTileTheScreen(tab: AppModel.Tab, size: (rows: Int, columns: Int)) {
        let layout = ScreenLayout(rows: size.rows, columns: size.columns, tab: tab)
        #expect(layout.tabBarRow == 0 && layout.tabRuleRow == 1)
        if tab == .search {
            #expect(layout.searchFieldRow == 2 && layout.searchRuleRow == 3 && layout.listTop == 4)
        } else {
            #expect(layout.searchFieldRow == nil && layout.searchRuleRow == nil && layout.listTop == 2)
        }
        #expect(layout.listTop + layout.listHeight == layout.hintsRow, "the list ends right above the keys")
        #expect(layout.hintsRow + 1 == layout.statusRow && layout.statusRow == size.rows - 1)
        // The overlays sit between the tab bar's rule and the keys; their text between the
        // box's top edge and the footer's blank line.
        #expect(layout.overlayTop + layout.overlayHeight == layout.hintsRow)
        #expect(layout.overlayTextRows == layout.overlayHeight - 4 && layout.overlayTextWidth == size.columns - 4)
    }
}
