import IdeaModel

/// Why the store refused a request.
public enum IdeaStoreError: UserFacingError, Equatable, Sendable {
    /// No idea has this id or id prefix.
    case unknownId(String)
    /// More than one idea starts with this prefix.
    case ambiguousId(String, matches: Int)
    /// An id must be hexadecimal digits and dashes.
    case malformedId(String)
    /// A search query was empty.
    case emptyQuery
    /// The same id appears twice in an import.
    case duplicateImportId(String)
    /// One idea of an import breaks a rule; nothing was imported.
    case invalidImportedIdea(position: Int, id: String, reason: IdeaValidationError)
    /// The idea's history holds no version with this number.
    case unknownVersion(id: String, version: Int64)
    /// A device name must be one line of 1 to 64 characters.
    case invalidDeviceName(String)

    public func message(in language: Language) -> String {
        switch (self, language) {
        case let (.unknownId(id), .english):
            "No idea has the id \"\(id)\"."
        case let (.unknownId(id), .traditionalChinese):
            "找不到識別碼為「\(id)」的靈感"
        case let (.ambiguousId(prefix, matches), .english):
            "The id \"\(prefix)\" matches \(matches) ideas; type more of it."
        case let (.ambiguousId(prefix, matches), .traditionalChinese):
            "識別碼「\(prefix)」符合 \(matches) 筆靈感，請輸入更多字元"
        case let (.malformedId(id), .english):
            "\"\(id)\" is not an idea id: use hexadecimal digits and dashes, as `ideabox list` shows them."
        case let (.malformedId(id), .traditionalChinese):
            "「\(id)」不是靈感識別碼：請使用 `ideabox list` 顯示的十六進位字元與連字號"
        case (.emptyQuery, .english):
            "The search query is empty."
        case (.emptyQuery, .traditionalChinese):
            "搜尋字串不能為空"
        case let (.duplicateImportId(id), .english):
            "The import holds the id \(id) more than once; nothing was imported."
        case let (.duplicateImportId(id), .traditionalChinese):
            "匯入檔案中識別碼 \(id) 重複出現；沒有匯入任何資料"
        case let (.invalidImportedIdea(position, id, reason), .english):
            "Idea \(position) (\(id)) of the import is invalid: \(reason.message(in: language)) Nothing was imported."
        case let (.invalidImportedIdea(position, id, reason), .traditionalChinese):
            "匯入檔案的第 \(position) 筆靈感（\(id)）無效：\(reason.message(in: language))；沒有匯入任何資料"
        case let (.unknownVersion(id, version), .english):
            "The idea \(id) has no version \(version); `ideabox history \(id.prefix(8))` lists its versions."
        case let (.unknownVersion(id, version), .traditionalChinese):
            "靈感 \(id) 沒有版本 \(version)；`ideabox history \(id.prefix(8))` 會列出它的版本"
        case let (.invalidDeviceName(name), .english):
            "\"\(name)\" can't be a device name: use one line of 1 to \(DeviceNames.maximumLength) characters. Nothing was changed."
        case let (.invalidDeviceName(name), .traditionalChinese):
            "「\(name)」不能當裝置名稱：請使用一行 1 到 \(DeviceNames.maximumLength) 個字元；沒有任何變更"
        }
    }
}
