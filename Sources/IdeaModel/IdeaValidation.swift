import IdeaBoxFoundation
/// The limits of an idea's text, counted in characters as a person sees them
/// (grapheme clusters), not bytes or code points.
public enum IdeaLimits {
    /// The longest title allowed.
    public static let titleLength = 256
    /// The longest description allowed.
    public static let descriptionLength = 4096
}

/// Why an idea was refused.
public enum IdeaValidationError: UserFacingError, Equatable, Sendable {
    case emptyTitle
    case titleTooLong(length: Int)
    case titleNotOneLine
    case descriptionTooLong(length: Int)
    case descriptionHasControlCharacters
    case updatedBeforeCreated
    case negativeVersion
    case emptyDeviceId

    /// The JSON field of an idea this rule is about (`title`, `updatedAt`, …).
    public var field: String {
        switch self {
        case .emptyTitle, .titleTooLong, .titleNotOneLine: "title"
        case .descriptionTooLong, .descriptionHasControlCharacters: "description"
        case .updatedBeforeCreated: "updatedAt"
        case .negativeVersion: "version"
        case .emptyDeviceId: "deviceId"
        }
    }

    public func message(in language: Language) -> String {
        switch (self, language) {
        case (.emptyTitle, .english):
            "The title can't be empty."
        case (.emptyTitle, .traditionalChinese):
            "靈感標題不能為空"
        case let (.titleTooLong(length), .english):
            "The title is \(length) characters long; the limit is \(IdeaLimits.titleLength)."
        case let (.titleTooLong(length), .traditionalChinese):
            "靈感標題超過 \(IdeaLimits.titleLength) 字限制（目前 \(length) 字）"
        case (.titleNotOneLine, .english):
            "The title must be one line, without newlines or control characters."
        case (.titleNotOneLine, .traditionalChinese):
            "靈感標題必須是單行，不能包含換行或控制字元"
        case let (.descriptionTooLong(length), .english):
            "The description is \(length) characters long; the limit is \(IdeaLimits.descriptionLength)."
        case let (.descriptionTooLong(length), .traditionalChinese):
            "靈感描述超過 \(IdeaLimits.descriptionLength) 字限制（目前 \(length) 字）"
        case (.descriptionHasControlCharacters, .english):
            "The description may hold newlines and tabs, but no other control characters."
        case (.descriptionHasControlCharacters, .traditionalChinese):
            "靈感描述可以包含換行與 Tab，但不能包含其他控制字元"
        case (.updatedBeforeCreated, .english):
            "updatedAt can't be earlier than createdAt."
        case (.updatedBeforeCreated, .traditionalChinese):
            "更新時間不能早於建立時間"
        case (.negativeVersion, .english):
            "version can't be negative."
        case (.negativeVersion, .traditionalChinese):
            "版本號不能為負數"
        case (.emptyDeviceId, .english):
            "deviceId can't be empty."
        case (.emptyDeviceId, .traditionalChinese):
            "裝置識別碼不能為空"
        }
    }
}

/// The rules of an idea's text. Input is normalized first (a title is trimmed, line breaks
/// in a description become `\n`), then checked.
public enum IdeaRules {
    /// The title as it will be stored, or why it can't be.
    ///
    /// A title is one line: a newline or any other control character anywhere is refused,
    /// even at the ends, rather than silently cut. Surrounding spaces are trimmed.
    public static func normalizedTitle(_ title: String) throws(IdeaValidationError) -> String {
        if title.holdsForbiddenScalar(allowing: [], orWhere: isForbiddenInTitle) {
            throw .titleNotOneLine
        }
        let trimmed = title.trimmingWhitespace()
        if trimmed.isEmpty {
            throw .emptyTitle
        }
        if trimmed.exceeds(IdeaLimits.titleLength) {
            throw .titleTooLong(length: trimmed.count)
        }
        return trimmed
    }

    /// The description as it will be stored, or why it can't be. `\r\n` and lone `\r`
    /// become `\n`; tabs and newlines are kept; other control characters are refused.
    public static func normalizedDescription(_ description: String) throws(IdeaValidationError) -> String {
        // By byte: Foundation's `contains` searches through CFString, and cost ten times
        // the rest of checking a synced idea.
        let unified = description.holdsByte(UInt8(ascii: "\r"))
            ? description.replacingLineBreaks()
            : description
        if unified.holdsForbiddenScalar(allowing: [UInt8(ascii: "\n"), UInt8(ascii: "\t")], orWhere: isForbiddenInDescription) {
            throw .descriptionHasControlCharacters
        }
        if unified.exceeds(IdeaLimits.descriptionLength) {
            throw .descriptionTooLong(length: unified.count)
        }
        return unified
    }

    /// Control characters (general category Cc is exactly U+0000–U+001F and U+007F–U+009F)
    /// and the line and paragraph separators (Zl, Zp: U+2028, U+2029). Checked by value:
    /// every imported or synced idea goes through this for each of its scalars.
    private static func isForbiddenInTitle(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    private static func isForbiddenInDescription(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar != "\t" && isForbiddenInTitle(scalar)
    }

    /// Refuses an `updatedAt` earlier than its `createdAt`.
    static func checkTimes(createdAt: Timestamp, updatedAt: Timestamp) throws(IdeaValidationError) {
        if updatedAt < createdAt {
            throw .updatedBeforeCreated
        }
    }

    /// Refuses a negative version.
    static func checkVersion(_ version: Int) throws(IdeaValidationError) {
        if version < 0 {
            throw .negativeVersion
        }
    }

    /// Refuses a writer's device id that is empty or only white space.
    static func checkDeviceId(_ deviceId: String) throws(IdeaValidationError) {
        if deviceId.trimmingWhitespace().isEmpty {
            throw .emptyDeviceId
        }
    }

    /// Every rule the given fields break, at most one a field, where `Idea.validated()` stops
    /// at the first: for an import that reports all of an idea's problems at once. A field
    /// not given (nil: absent or unreadable) is not checked, nor are the two times unless both are.
    public static func violations(
        title: String?, description: String?, createdAt: Timestamp?, updatedAt: Timestamp?, deviceId: String?, version: Int?
    ) -> [IdeaValidationError] {
        var violations: [IdeaValidationError] = []
        func check(_ rule: () throws(IdeaValidationError) -> Void) {
            do throws(IdeaValidationError) {
                try rule()
            } catch {
                violations.append(error)
            }
        }
        if let title { check { () throws(IdeaValidationError) in _ = try normalizedTitle(title) } }
        if let description { check { () throws(IdeaValidationError) in _ = try normalizedDescription(description) } }
        if let createdAt, let updatedAt { check { () throws(IdeaValidationError) in try checkTimes(createdAt: createdAt, updatedAt: updatedAt) } }
        if let deviceId { check { () throws(IdeaValidationError) in try checkDeviceId(deviceId) } }
        if let version { check { () throws(IdeaValidationError) in try checkVersion(version) } }
        return violations
    }
}

extension Idea {
    /// This idea with its text normalized, or the first rule it breaks: its text, its
    /// timestamps, its version or its writer. Used for ideas that come from outside (an
    /// import file, another device).
    public func validated() throws(IdeaValidationError) -> Idea {
        var idea = self
        idea.title = try IdeaRules.normalizedTitle(title)
        idea.description = try IdeaRules.normalizedDescription(description)
        try IdeaRules.checkTimes(createdAt: createdAt, updatedAt: updatedAt)
        try IdeaRules.checkVersion(version)
        try IdeaRules.checkDeviceId(deviceId)
        return idea
    }
}

extension String {
    /// The string without leading and trailing white space (including U+3000, the
    /// ideographic space common in Chinese text).
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }

    /// Whether the string holds more than `limit` grapheme clusters. A cluster holds at
    /// least one code point and one byte, so short texts are settled without the costly
    /// grapheme count; every synced and imported idea is checked.
    fileprivate func exceeds(_ limit: Int) -> Bool {
        utf8.count > limit && unicodeScalars.count > limit && count > limit
    }

    /// Whether the text's UTF-8 holds `byte`.
    fileprivate func holdsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }

    /// Whether the text holds a control character (U+0000–U+001F, U+007F–U+009F) or a line
    /// or paragraph separator (U+2028, U+2029), but for the ASCII ones `allowed`. Read byte
    /// by byte, as UTF-8 writes them (`C2 80`–`C2 9F`, `E2 80 A8`, `E2 80 A9`): every imported
    /// and synced idea goes through this, and decoding each scalar was a quarter of reading
    /// an export file. `isForbidden` says the same by scalar, for text stored otherwise.
    fileprivate func holdsForbiddenScalar(allowing allowed: [UInt8], orWhere isForbidden: (Unicode.Scalar) -> Bool) -> Bool {
        let byBytes = utf8.withContiguousStorageIfAvailable { bytes in
            // A lead byte is never a continuation byte: a match is a whole scalar.
            for index in bytes.indices {
                switch bytes[index] {
                case 0x00...0x1F where !allowed.contains(bytes[index]), 0x7F:
                    return true
                case 0xC2 where index + 1 < bytes.count && 0x80...0x9F ~= bytes[index + 1]:
                    return true
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && 0xA8...0xA9 ~= bytes[index + 2]:
                    return true
                default:
                    continue
                }
            }
            return false
        }
        return byBytes ?? unicodeScalars.contains(where: isForbidden)
    }

    fileprivate func replacingLineBreaks() -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == "\r\n" || character == "\r" {
                result.append("\n")
            } else {
                result.append(character)
            }
        }
        return result
    }
}
