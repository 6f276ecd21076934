import ProcessTestSupport
import Testing

/// ArgumentParser's usage errors, one line on stderr, in the user's language.
@Suite(.takesTurns) struct UsageErrorTests {
    @Test(arguments: [
        (["show"], "Missing expected argument '<id>'", "缺少必要的參數 '<id>'"),
        (["list", "--bogus"], "Unknown option '--bogus'", "不認得的選項 '--bogus'"),
        (["list", "--limit", "many"], "The value 'many' is invalid for '--limit <limit>'", "「many」不是 '--limit <limit>' 的有效值"),
        (["show", "abc", "more"], "Unexpected argument 'more'", "多餘的參數 'more'"),
        (["add", "x", "-d"], "Missing value for '-d <description>'", "'-d <description>' 缺少值"),
        (["sync", "--bogus"], "Unknown option '--bogus'", "不認得的選項 '--bogus'"),
    ])
    func commonMistakesAreToldInEnglishOrChinese(arguments: [String], english: String, chinese: String) async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(arguments, message: english + " (see `ideabox help`)")
        try await sandbox.expectRejection(arguments, message: chinese + "（請見 `ideabox help`）", environment: ["LANG": "zh_TW.UTF-8"])
        try await sandbox.expectRejection(arguments, message: chinese + "（請見 `ideabox help`）", environment: ["LANG": "zh_HK.UTF-8"])
    }
}
