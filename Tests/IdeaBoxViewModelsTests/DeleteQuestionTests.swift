import Foundation
import IdeaBoxViewModels
import IdeaModel
import Testing

/// `DeleteQuestion`: the y/n question before a delete, its title cut so "y/n" always shows.
@Suite struct DeleteQuestionTests {
    private static let text = UIText(language: .english)

    private static func idea(_ title: String) -> Idea {
        Idea(id: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, title: title, createdAt: ViewModelFixture.start, deviceId: "here")
    }

    @Test func aShortTitleShowsWhole() {
        #expect(DeleteQuestion.idea(Self.idea("Bake bread")).question(in: Self.text, columns: 80) == Self.text.deleteQuestion("Bake bread"))
    }

    @Test(arguments: [40, 80, 200])
    func aLongTitleIsCutSoTheQuestionFitsItsBox(columns: Int) {
        let question = DeleteQuestion.idea(Self.idea(String(repeating: "long ", count: 40))).question(in: Self.text, columns: columns)
        #expect(TextWidth.width(of: question) <= DeleteQuestion.boxWidth(columns: columns) - 4)
        #expect(question.hasSuffix("”? y/n"))
        #expect(question.contains("…"))
    }

    @Test func aSelectionIsAskedAboutByItsCount() {
        let ideas = [Self.idea("One"), Self.idea("Two")]
        #expect(DeleteQuestion.ideas(ideas).question(in: Self.text, columns: 80) == Self.text.deleteQuestion(count: 2))
    }

    @Test func theBoxIsSixtyColumnsAtMostAndLeavesTwoEachSide() {
        #expect(DeleteQuestion.boxWidth(columns: 200) == 60)
        #expect(DeleteQuestion.boxWidth(columns: 40) == 36)
    }
}
