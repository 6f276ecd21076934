import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// The text rules of an idea (`IdeaRules`) and the whole-idea check (`Idea.validated()`).
@Suite struct IdeaValidationTests {
    // MARK: Title length, counted in characters as a person sees them

    static let titleCharacters: [String] = ["靈", "👍🏽", "👨‍👩‍👧‍👦", "a", "é", "🇹🇼"]

    @Test("A title of exactly 256 characters is accepted", arguments: titleCharacters)
    func titleAtLimitIsAccepted(character: String) throws {
        let title = String(repeating: character, count: IdeaLimits.titleLength)
        #expect(title.count == 256)
        #expect(try IdeaRules.normalizedTitle(title) == title)
    }

    @Test("A title of 257 characters is refused, with its length", arguments: titleCharacters)
    func titleOverLimitIsRefused(character: String) {
        let title = String(repeating: character, count: IdeaLimits.titleLength + 1)
        #expect(throws: IdeaValidationError.titleTooLong(length: 257)) {
            try IdeaRules.normalizedTitle(title)
        }
    }

    @Test func titleLimitIsCountedAfterTrimming() throws {
        let title = "  " + String(repeating: "靈", count: 256) + "\u{3000}"
        #expect(try IdeaRules.normalizedTitle(title) == String(repeating: "靈", count: 256))
    }

    // MARK: Empty and one-line titles

    @Test("An empty or white-space-only title is refused", arguments: ["", " ", "   ", "\u{3000}", " \u{3000} ", "\u{00A0}"])
    func emptyTitleIsRefused(title: String) {
        #expect(throws: IdeaValidationError.emptyTitle) {
            try IdeaRules.normalizedTitle(title)
        }
    }

    static let lineBreakers: [String] = ["\n", "\r", "\r\n", "\t", "\u{1B}", "\u{2028}", "\u{2029}", "\u{0}", "\u{7F}", "\u{85}"]

    @Test("A newline or control character anywhere in the title is refused", arguments: lineBreakers, [0, 1, 2])
    func controlCharacterInTitleIsRefused(character: String, position: Int) {
        let title = switch position {
        case 0: character + "Idea"
        case 1: "Id" + character + "ea"
        default: "Idea" + character
        }
        #expect(throws: IdeaValidationError.titleNotOneLine) {
            try IdeaRules.normalizedTitle(title)
        }
    }

    @Test func titleIsTrimmed() throws {
        #expect(try IdeaRules.normalizedTitle("  Learn Swift  ") == "Learn Swift")
        #expect(try IdeaRules.normalizedTitle("\u{3000}學習 Swift\u{3000}") == "學習 Swift")
        #expect(try IdeaRules.normalizedTitle("a  b") == "a  b", "inner spaces stay")
    }

    @Test func zeroWidthJoinerIsNotAControlCharacter() throws {
        let family = "👨‍👩‍👧"
        #expect(try IdeaRules.normalizedTitle(family) == family)
    }

    // MARK: Description

    @Test("A description of exactly 4096 characters is accepted", arguments: ["x", "靈", "👍🏽"])
    func descriptionAtLimitIsAccepted(character: String) throws {
        let description = String(repeating: character, count: IdeaLimits.descriptionLength)
        #expect(try IdeaRules.normalizedDescription(description) == description)
    }

    @Test("A description of 4097 characters is refused, with its length", arguments: ["x", "靈", "👍🏽"])
    func descriptionOverLimitIsRefused(character: String) {
        let description = String(repeating: character, count: IdeaLimits.descriptionLength + 1)
        #expect(throws: IdeaValidationError.descriptionTooLong(length: 4097)) {
            try IdeaRules.normalizedDescription(description)
        }
    }

    @Test func emptyDescriptionIsAllowed() throws {
        #expect(try IdeaRules.normalizedDescription("") == "")
    }

    @Test func lineBreaksInDescriptionBecomeNewlines() throws {
        #expect(try IdeaRules.normalizedDescription("one\r\ntwo\rthree\nfour") == "one\ntwo\nthree\nfour")
        #expect(try IdeaRules.normalizedDescription("\r\n\r\n") == "\n\n")
    }

    @Test func descriptionKeepsNewlinesAndTabs() throws {
        let text = "line one\n\tindented\n\n靈感"
        #expect(try IdeaRules.normalizedDescription(text) == text)
    }

    @Test func descriptionLengthCountsACRLFAsOneCharacter() throws {
        let text = String(repeating: "\r\n", count: IdeaLimits.descriptionLength)
        #expect(try IdeaRules.normalizedDescription(text) == String(repeating: "\n", count: IdeaLimits.descriptionLength))
    }

    @Test("Control characters other than newline and tab are refused in a description",
          arguments: ["\u{1B}", "\u{0}", "\u{7}", "\u{7F}", "\u{85}", "\u{2028}"])
    func controlCharacterInDescriptionIsRefused(character: String) {
        #expect(throws: IdeaValidationError.descriptionHasControlCharacters) {
            try IdeaRules.normalizedDescription("before" + character + "after")
        }
    }

    /// Every scalar of the Basic Multilingual Plane and a few beyond, in the middle of a title
    /// and a description: refused exactly where Unicode calls it a control character or a line
    /// or paragraph separator (newline and tab kept in a description; a carriage return made a
    /// newline there). The rules read UTF-8 byte by byte; this asks Unicode scalar by scalar.
    @Test func theRulesRefuseExactlyUnicodesControlsAndSeparators() {
        let scalars = (0...0xFFFF).compactMap(Unicode.Scalar.init) + ["\u{1F600}", "\u{10FFFD}", "\u{E0001}"]
        for scalar in scalars {
            let category = scalar.properties.generalCategory
            let isForbidden = category == .control || category == .lineSeparator || category == .paragraphSeparator
            let text = "a" + String(Character(scalar)) + "靈"
            let titleRefused = (try? IdeaRules.normalizedTitle(text)) == nil
            #expect(titleRefused == isForbidden, "title with U+\(String(scalar.value, radix: 16))")
            let keptInDescription = ["\n", "\t", "\r"].contains(scalar)
            let descriptionRefused = (try? IdeaRules.normalizedDescription(text)) == nil
            #expect(descriptionRefused == (isForbidden && !keptInDescription), "description with U+\(String(scalar.value, radix: 16))")
        }
    }

    // MARK: Messages

    @Test("Every error has a message in each language", arguments: IdeaValidationErrorCases.all)
    func everyErrorHasMessages(error: IdeaValidationError) {
        let english = error.message(in: .english)
        let chinese = error.message(in: .traditionalChinese)
        #expect(!english.isEmpty)
        #expect(!chinese.isEmpty)
        #expect(english != chinese)
        #expect(english.unicodeScalars.allSatisfy { $0.isASCII }, "English messages are plain ASCII")
        #expect(chinese.unicodeScalars.contains { !$0.isASCII }, "the Chinese message is actually Chinese")
    }

    @Test func messagesAreExact() {
        #expect(IdeaValidationError.emptyTitle.message(in: .english) == "The title can't be empty.")
        #expect(IdeaValidationError.emptyTitle.message(in: .traditionalChinese) == "靈感標題不能為空")
        #expect(IdeaValidationError.titleTooLong(length: 300).message(in: .english)
            == "The title is 300 characters long; the limit is 256.")
        #expect(IdeaValidationError.titleTooLong(length: 300).message(in: .traditionalChinese)
            == "靈感標題超過 256 字限制（目前 300 字）")
        #expect(IdeaValidationError.descriptionTooLong(length: 5000).message(in: .english)
            == "The description is 5000 characters long; the limit is 4096.")
        #expect(IdeaValidationError.descriptionTooLong(length: 5000).message(in: .traditionalChinese)
            == "靈感描述超過 4096 字限制（目前 5000 字）")
    }

    // MARK: Idea.validated()

    private static let created = Timestamp(milliseconds: 1_762_246_800_000)

    private static func idea(
        title: String = "Idea", description: String = "", updatedAt: Timestamp? = nil,
        deviceId: String = "device-a", version: Int = 0
    ) -> Idea {
        Idea(
            id: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, title: title, description: description,
            createdAt: created, updatedAt: updatedAt, deviceId: deviceId, version: version)
    }

    @Test func validIdeaComesBackNormalized() throws {
        let idea = Self.idea(title: "  Title\u{3000}", description: "a\r\nb", updatedAt: Self.created.adding(milliseconds: 1), version: 3)
        let validated = try idea.validated()
        #expect(validated.title == "Title")
        #expect(validated.description == "a\nb")
        #expect(validated.id == idea.id)
        #expect(validated.createdAt == idea.createdAt)
        #expect(validated.updatedAt == idea.updatedAt)
        #expect(validated.version == 3)
        #expect(validated.deviceId == "device-a")
    }

    @Test func updatedEqualToCreatedIsFine() throws {
        _ = try Self.idea(updatedAt: Self.created).validated()
    }

    @Test func updatedBeforeCreatedIsRefused() {
        #expect(throws: IdeaValidationError.updatedBeforeCreated) {
            try Self.idea(updatedAt: Self.created.adding(milliseconds: -1)).validated()
        }
    }

    @Test func negativeVersionIsRefused() {
        #expect(throws: IdeaValidationError.negativeVersion) {
            try Self.idea(version: -1).validated()
        }
    }

    @Test("An empty or blank device id is refused", arguments: ["", "   ", "\u{3000}"])
    func emptyDeviceIdIsRefused(deviceId: String) {
        #expect(throws: IdeaValidationError.emptyDeviceId) {
            try Self.idea(deviceId: deviceId).validated()
        }
    }

    @Test func textRulesApplyToValidated() {
        #expect(throws: IdeaValidationError.emptyTitle) { try Self.idea(title: " ").validated() }
        #expect(throws: IdeaValidationError.titleNotOneLine) { try Self.idea(title: "a\nb").validated() }
        #expect(throws: IdeaValidationError.descriptionHasControlCharacters) {
            try Self.idea(description: "\u{1B}[31m").validated()
        }
        #expect(throws: IdeaValidationError.titleTooLong(length: 257)) {
            try Self.idea(title: String(repeating: "靈", count: 257)).validated()
        }
    }
}

/// One value of every `IdeaValidationError` case, for parameterized tests.
enum IdeaValidationErrorCases {
    static let all: [IdeaValidationError] = [
        .emptyTitle, .titleTooLong(length: 257), .titleNotOneLine, .descriptionTooLong(length: 4097),
        .descriptionHasControlCharacters, .updatedBeforeCreated, .negativeVersion, .emptyDeviceId,
    ]
}
