import IdeaBoxViewModels
import IdeaStore
import Testing

/// `TabBar`: every tab's label and where it starts, at any width, and the tab a click hits.
@Suite struct TabBarTests {
    private static let text = UIText(language: .english)

    @Test func aWideBarNamesTheAppAndEachTabWithItsCount() {
        let bar = TabBar(openTab: .all, counts: IdeaCounts(all: 12, completed: 3), text: Self.text, columns: 80)
        #expect(bar.name == " \(Self.text.appName) ")
        #expect(bar.labels.map { $0.label } == [
            " 1 \(Self.text.tabLabel(.all)) (12) ", " 2 \(Self.text.tabLabel(.completed)) (3) ", " 3 \(Self.text.tabLabel(.search)) ",
        ])
        #expect(bar.labels.map { $0.column }.first == TextWidth.width(of: bar.name) + 1)
    }

    @Test(arguments: [60, 50, 40])
    func aNarrowBarKeepsEveryTabWhole(columns: Int) {
        let bar = TabBar(openTab: .all, counts: IdeaCounts(all: 123_456, completed: 2_500_000), text: Self.text, columns: columns)
        #expect(bar.labels.map { $0.tab } == AppModel.Tab.allCases)
        let last = bar.labels[bar.labels.count - 1]
        #expect(last.column + TextWidth.width(of: last.label) <= columns)
    }

    @Test func atFortyColumnsTheCountsAreShortened() {
        let bar = TabBar(openTab: .all, counts: IdeaCounts(all: 123_456, completed: 2_500_000), text: Self.text, columns: 40)
        #expect(bar.name.isEmpty)
        #expect(bar.labels[0].label.hasSuffix(" (123k) ") && bar.labels[1].label.hasSuffix(" (2M) "))
    }

    @Test func aClickHitsTheTabWhoseLabelItIsOn() {
        let bar = TabBar(openTab: .all, counts: IdeaCounts(all: 1, completed: 0), text: Self.text, columns: 80)
        for label in bar.labels {
            #expect(bar.tab(at: label.column) == label.tab)
            #expect(bar.tab(at: label.column + TextWidth.width(of: label.label) - 1) == label.tab)
        }
        #expect(bar.tab(at: 0) == nil, "the app's name")
        #expect(bar.tab(at: 79) == nil, "past the last tab")
    }
}
