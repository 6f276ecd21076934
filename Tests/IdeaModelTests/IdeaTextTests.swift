import IdeaModel
import Testing

/// The file a person edits in their own editor: title, blank line, description.
@Suite struct IdeaTextTests {
    @Test func anIdeaIsWrittenAsTitleBlankLineDescription() {
        #expect(IdeaText(title: "Bake", description: "sourdough\nrye").fileText == "Bake\n\nsourdough\nrye\n")
        #expect(IdeaText(title: "Bake", description: "").fileText == "Bake\n")
        #expect(IdeaText(title: "", description: "").fileText == "", "a new idea is an empty file")
    }

    @Test(arguments: [
        ("Title\n\nBody\n", "Title", "Body"),
        ("Title\nBody right under\n", "Title", "Body right under"),
        ("Title\n\n\n  \nBody\n\nsecond paragraph\n\n\n", "Title", "Body\n\nsecond paragraph"),
        ("Title\r\n\r\nWindows\r\nlines\r\n", "Title", "Windows\nlines"),
        ("Only a title", "Only a title", ""),
        ("", "", ""),
        ("\n\nno title\n", "", "no title"),
        ("  標題  \n\n  縮排的描述", "  標題  ", "  縮排的描述"),
    ])
    func whatTheEditorLeftIsReadBack(file: String, title: String, description: String) {
        #expect(IdeaText(fileText: file) == IdeaText(title: title, description: description))
    }

    @Test func writingThenReadingGivesTheSameIdea() {
        let text = IdeaText(title: "靈感 👍🏽", description: "一\n\n二\tthree")
        #expect(IdeaText(fileText: text.fileText) == text)
    }
}
