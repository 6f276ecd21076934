import IdeaBoxFoundation
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import Testing

/// A key that starts a two-key sequence (`g` of `g x`) on screen: it does its own action at
/// once, the hint line says that it waits, and the wait ends after `AppModel.sequenceWait`
/// on the app's clock (a clock the test moves) or with any key that is not a second key,
/// which then does its own action.
@Suite struct KeySequenceScreenTests {
    /// Ideas whose second row has a link (the fixture's first two, a link added).
    private static func ideas(_ language: Language) -> [Idea] {
        var ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        ideas[1].description += " https://example.com/cheat-sheet"
        return ideas
    }

    @Test(arguments: [Language.english, .traditionalChinese])
    func gGoesToTheTopAtOnceSaysItWaitsAndAfterTheWaitXMarksTheTopIdeaDone(language: Language) throws {
        let clock = ManualClock(start: ScreenFixtures.now)
        let app = try ScreenFixtures.app(Self.ideas(language), language: language, clock: clock.wallClock)
        var opened: [String] = []
        app.openLink = { opened.append($0); return true }
        ScreenFixtures.press([.char("j"), .char("j"), .char("g")], on: app)
        #expect(app.allIdeas.selectedIndex == 0, "g goes to the first idea at once")
        #expect(app.waitingSequenceKey == .char("g"))
        try Screens.expect(AppScreen.render(app), matches: language == .english ? "sequence-waiting" : "chinese-sequence-waiting")

        clock.advance(by: AppModel.sequenceWait - 1)
        #expect(!app.tick(), "still waiting: nothing to draw")
        #expect(app.waitingSequenceKey == .char("g"))
        clock.advance(by: 1)
        #expect(app.tick(), "the wait is over: the hint line changes")
        #expect(app.waitingSequenceKey == nil)
        let listHints = AppScreen.render(app).grid.renderText().split(separator: "\n", omittingEmptySubsequences: false)[app.layout.hintsRow]
        #expect(listHints.contains(app.text.listHints[0]), "\(listHints)")

        app.handle(.char("x"))
        #expect(opened == [])
        #expect(try #require(app.allIdeas.selectedIdea).isCompleted, "x on its own: the top idea is done")
        try Screens.expect(
            AppScreen.render(app), matches: language == .english ? "sequence-timed-out-then-x" : "chinese-sequence-timed-out-then-x")
    }

    @Test func aKeyAfterTheWaitIsItselfEvenBeforeATick() throws {
        let clock = ManualClock(start: ScreenFixtures.now)
        let app = try ScreenFixtures.app(Self.ideas(.english), clock: clock.wallClock)
        var opened: [String] = []
        app.openLink = { opened.append($0); return true }
        ScreenFixtures.press([.char("j"), .char("g")], on: app)
        clock.advance(by: 2000)
        app.handle(.char("x"))
        #expect(opened == [])
        #expect(app.status.message?.text != app.text.noLink)
        #expect(app.allIdeas.selectedIndex == 0)
        #expect(try #require(app.allIdeas.selectedIdea).isCompleted)
    }

    @Test func gThenAKeyThatIsNoSecondKeyEndsTheWaitAndDoesItsOwnAction() throws {
        let clock = ManualClock(start: ScreenFixtures.now)
        let app = try ScreenFixtures.app(Self.ideas(.english), clock: clock.wallClock)
        ScreenFixtures.press([.char("j"), .char("j"), .char("g")], on: app)
        clock.advance(by: AppModel.sequenceWait / 2)
        app.handle(.char("j"))
        #expect(app.allIdeas.selectedIndex == 1, "g went to the top, j one down from there")
        #expect(app.waitingSequenceKey == nil)
        app.handle(.char("x"))
        #expect(try #require(app.allIdeas.selectedIdea).isCompleted == !Self.ideas(.english)[1].isCompleted, "x after j is x")
    }

    @Test func gxWithinTheWaitOpensTheLinkOfTheRowGWasPressedOn() throws {
        let clock = ManualClock(start: ScreenFixtures.now)
        let app = try ScreenFixtures.app(Self.ideas(.english), clock: clock.wallClock)
        var opened: [String] = []
        app.openLink = { opened.append($0); return true }
        ScreenFixtures.press([.char("j"), .char("g")], on: app)
        clock.advance(by: AppModel.sequenceWait - 1)
        app.handle(.char("x"))
        #expect(opened == ["https://example.com/cheat-sheet"])
        #expect(app.allIdeas.selectedIndex == 1, "the link of the row g was pressed on, which stays selected")
        #expect(app.counts.completed == ScreenFixtures.englishIdeas.filter(\.isCompleted).count, "g x is not x")
        #expect(app.waitingSequenceKey == nil)
        try Screens.expect(AppScreen.render(app), matches: "sequence-opened-link")
    }
}
