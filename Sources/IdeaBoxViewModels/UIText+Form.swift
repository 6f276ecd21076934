import IdeaModel

/// The search field, the lists when empty, and the edit form with its questions.
extension UIText {
    /// The form's title for a new idea.
    public var newIdea: String { text("New idea", "新增靈感") }
    /// The form's title when editing.
    public var editIdea: String { text("Edit idea", "編輯靈感") }
    /// Field labels.
    public var titleField: String { text("Title", "標題") }
    /// Field labels.
    public var descriptionField: String { text("Description", "描述") }
    /// Field labels.
    public var completedField: String { text("Completed", "已完成") }
    /// The discard question.
    public var discardQuestion: String { text("Discard your changes? y/n", "放棄變更？y/n") }
    /// The question when the idea being edited was deleted by another device.
    public var deletedElsewhereQuestion: String {
        text("Deleted on another device. Save your text as a new idea? y/n",
             "這筆靈感已在其他裝置刪除。要把內容存成新的靈感嗎？y/n")
    }
    /// The same question naming the device that deleted it (`device`, by `names`).
    /// A deletion by this device came from another window or command of it: "meanwhile".
    public func deletedQuestion(by device: String, names: DeviceNames) -> String {
        if device == names.thisDevice {
            return text("Deleted meanwhile on this device. Save your text as a new idea? y/n", "這筆靈感已在這台裝置上另外刪除。要把內容存成新的靈感嗎？y/n")
        }
        let on = names.on(device, in: language)
        return text("Deleted \(on). Save your text as a new idea? y/n", "這筆靈感已\(on)刪除。要把內容存成新的靈感嗎？y/n")
    }
    /// The same question where the form is narrow.
    public var deletedElsewhereShortQuestion: String {
        text("Deleted elsewhere: save as new? y/n", "已在其他裝置刪除，存成新靈感？y/n")
    }
    /// The idea being edited was deleted elsewhere and its text was saved as a new idea.
    public func savedAsNew(_ title: String) -> String {
        text("Saved as a new idea: “\(title)”", "已存成新的靈感：「\(title)」")
    }

    /// The form's notice: the idea changed on another device (`device`, by `names`) while it was open.
    public func changedElsewhereNotice(_ fields: [IdeaField], by device: String, names: DeviceNames) -> String {
        let fieldNames = fields.map(fieldName)
        let on = names.on(device, in: language)
        let save = formKey(.save).map { text(" — \($0) saves only what you changed", "— \($0) 只儲存你修改的欄位") } ?? ""
        return text("Changed \(on): \(fieldNames.joined(separator: ", "))", "\(on)已修改：\(fieldNames.joined(separator: "、"))") + save
    }
    /// The form's question: fields changed here and on another device (`device`, by `names`).
    public func mineOrTheirsQuestion(_ fields: [IdeaField], by device: String, names: DeviceNames) -> String {
        let fieldNames = fields.map(fieldName).joined(separator: ", ")
        let on = names.on(device, in: language)
        return text("\(fieldNames.prefix(1).uppercased() + fieldNames.dropFirst()) changed here and \(on): m keep mine, t keep theirs",
                    "\(fields.map(fieldName).joined(separator: "、"))在這裡和\(on)都被修改：m 保留我的，t 保留對方的")
    }

    /// The delete question.
    public func deleteQuestion(_ title: String) -> String {
        text("Delete “\(title)”? y/n", "刪除「\(title)」？y/n")
    }
    /// The delete question for a selection of many ideas.
    public func deleteQuestion(count: Int) -> String {
        text("Delete \(count) selected ideas? y/n", "刪除選取的 \(count) 筆靈感？y/n")
    }
    /// The delete box title.
    public var deleteTitle: String { text("Delete", "刪除") }
}
