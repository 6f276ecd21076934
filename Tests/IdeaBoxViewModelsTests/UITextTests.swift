import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import Testing

/// The app's words in English and Traditional Chinese.
@Suite struct UITextTests {
    private static let now = ViewModelFixture.start
    private static let english = UIText(language: .english)
    private static let chinese = UIText(language: .traditionalChinese)

    private static func ago(_ seconds: Int64) -> Timestamp {
        now.adding(milliseconds: -seconds * 1000)
    }

    @Test("Tab labels in English and Traditional Chinese", arguments: [
        (AppModel.Tab.all, "All Ideas", "全部靈感"),
        (.completed, "Completed", "已完成"),
        (.search, "Search", "搜尋"),
    ])
    func tabLabels(tab: AppModel.Tab, english: String, chinese: String) {
        #expect(Self.english.tabLabel(tab) == english)
        #expect(Self.chinese.tabLabel(tab) == chinese)
    }

    @Test("Ages in English", arguments: [
        (0, "just now"), (59, "just now"), (60, "1m ago"), (119, "1m ago"), (120, "2m ago"),
        (3599, "59m ago"), (3600, "1h ago"), (86_399, "23h ago"), (86_400, "1d ago"),
        (86_400 * 30 - 1, "29d ago"),
    ] as [(Int64, String)])
    func englishAges(seconds: Int64, expected: String) {
        #expect(Self.english.age(of: Self.ago(seconds), now: Self.now) == expected)
    }

    @Test("Ages in Chinese", arguments: [
        (0, "剛剛"), (59, "剛剛"), (60, "1 分鐘前"), (3599, "59 分鐘前"), (3600, "1 小時前"),
        (86_399, "23 小時前"), (86_400, "1 天前"), (86_400 * 30 - 1, "29 天前"),
    ] as [(Int64, String)])
    func chineseAges(seconds: Int64, expected: String) {
        #expect(Self.chinese.age(of: Self.ago(seconds), now: Self.now) == expected)
    }

    @Test("From thirty days on, the UTC date", arguments: [UIText(language: .english), UIText(language: .traditionalChinese)])
    func oldAgesAreDates(text: UIText) {
        #expect(text.age(of: Self.ago(86_400 * 30), now: Self.now) == "2026-10-21")
        #expect(text.age(of: Timestamp(milliseconds: 0), now: Self.now) == "1970-01-01")
        #expect(text.age(of: Timestamp(milliseconds: 1_767_225_599_999), now: Self.now) == "2025-12-31")
    }

    @Test func partsOfASecondDoNotCount() {
        #expect(Self.english.age(of: Self.now.adding(milliseconds: -59_999), now: Self.now) == "just now")
        #expect(Self.english.age(of: Self.now.adding(milliseconds: -60_000), now: Self.now) == "1m ago")
    }

    @Test func aTimeInTheFutureIsJustNow() {
        #expect(Self.english.age(of: Self.now.adding(milliseconds: 3_600_000), now: Self.now) == "just now")
        #expect(Self.chinese.age(of: Self.now.adding(milliseconds: 90_000_000), now: Self.now) == "剛剛")
    }

    @Test func matchCounts() {
        #expect(Self.english.matches(0, capped: false) == "0 matches")
        #expect(Self.english.matches(1, capped: false) == "1 match")
        #expect(Self.english.matches(2, capped: false) == "2 matches")
        #expect(Self.english.matches(1000, capped: true) == "1000+ matches")
        #expect(Self.chinese.matches(3, capped: false) == "找到 3 筆")
        #expect(Self.chinese.matches(1000, capped: true) == "找到 1000+ 筆")
    }

    @Test func everyTextDiffersBetweenTheLanguages() {
        let pairs: [(String, String)] = [
            (Self.english.localOnly, Self.chinese.localOnly),
            (Self.english.listHints.joined(), Self.chinese.listHints.joined()),
            (Self.english.deletedElsewhereQuestion, Self.chinese.deletedElsewhereQuestion),
            (Self.english.needsTerminal, Self.chinese.needsTerminal),
            (Self.english.searchLabel, Self.chinese.searchLabel),
            (Self.english.emptyList, Self.chinese.emptyList),
            (Self.english.noMatches, Self.chinese.noMatches),
            (Self.english.newIdea, Self.chinese.newIdea),
            (Self.english.discardQuestion, Self.chinese.discardQuestion),
            (Self.english.nothingToUndo, Self.chinese.nothingToUndo),
            (Self.english.helpFooter(scrollKeys: nil), Self.chinese.helpFooter(scrollKeys: nil)),
            (Self.english.helpFooter(scrollKeys: ["↑"]), Self.chinese.helpFooter(scrollKeys: ["↑"])),
            (Self.english.deleted("x"), Self.chinese.deleted("x")),
        ]
        for (english, chinese) in pairs {
            #expect(english != chinese)
        }
        // The keys are the same in both languages; only their words are translated.
        let words = [
            ("Edit form", "編輯表單"), ("Search field", "搜尋欄"), ("Click", "點按"), ("Wheel", "滾輪"), ("Space", "空白鍵"),
        ]
        #expect(Self.english.keyHelp.map { words.reduce($0.keys) { $0.replacingOccurrences(of: $1.0, with: $1.1) } }
            == Self.chinese.keyHelp.map(\.keys))
        #expect(zip(Self.english.keyHelp, Self.chinese.keyHelp).allSatisfy { $0.action.isEmpty == $1.action.isEmpty })
        #expect(zip(Self.english.keyHelp, Self.chinese.keyHelp).allSatisfy { $0.action.isEmpty || $0.action != $1.action })
        #expect(Self.chinese.deleteQuestion("靈感") == "刪除「靈感」？y/n")
        #expect(Self.english.deleteQuestion("Idea") == "Delete “Idea”? y/n")
    }

    @Test func tooSmallNoticeNamesBothSizes() {
        #expect(Self.english.tooSmall(rows: 8, columns: 30) == ["Terminal too small", "IdeaBox needs 40×10; this is 30×8."])
        #expect(Self.chinese.tooSmall(rows: 8, columns: 30)[1] == "IdeaBox 需要 40×10，目前為 30×8。")
    }

    /// Times are shown in the clock's time zone, never the test machine's: 23:30 UTC is the
    /// next morning in Taipei and the same afternoon in Los Angeles, date included.
    @Test func timesAreShownInTheGivenTimeZone() throws {
        let time = Timestamp(milliseconds: 1_772_494_200_000)  // 2026-03-02T23:30:00Z
        let taipei = UIText(language: .english, timeZone: try #require(TimeZone(identifier: "Asia/Taipei")))
        #expect(taipei.clockTime(time) == "07:30:00" && taipei.localDate(time) == "2026-03-03")
        let losAngeles = UIText(language: .english, timeZone: try #require(TimeZone(identifier: "America/Los_Angeles")))
        #expect(losAngeles.clockTime(time) == "15:30:00" && losAngeles.localDate(time) == "2026-03-02")
        let utc = UIText(language: .english, timeZone: .utc)
        #expect(utc.clockTime(time) == "23:30:00" && utc.localDate(time) == "2026-03-02")
        #expect(WallClock.fixed(time).timeZone == .utc, "a test's clock reads in UTC")
        #expect(WallClock.system.offset(by: 5).timeZone == WallClock.system.timeZone, "an offset keeps the zone")
    }
}
