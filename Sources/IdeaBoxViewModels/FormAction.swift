/// What a key does in the edit form, by name: `FormKeys` maps keys to these. The raw value is
/// the name the config file's `[form-keys]` table uses. The text fields' own editing keys
/// (arrows, `Ctrl-A`, `Ctrl-W`…) and the answers to the form's questions stay as they are.
public enum FormAction: String, BindableAction {
    /// Check the fields and save them.
    case save
    /// Close the form, asking first if something changed (the same key again: yes).
    case cancel
    /// The next field, round.
    case nextField = "next-field"
    /// The previous field, round.
    case previousField = "previous-field"
    /// The form's text in the person's own editor, then saved.
    case openInEditor = "open-in-editor"

    /// The form's keys before any config file.
    public static let defaultKeys: [FormAction: [KeySequence]] = [
        .save: [[.ctrl("s")], [.f(2)]],
        .cancel: [[.escape], [.ctrl("c")]],
        .nextField: [[.tab]],
        .previousField: [[.backTab]],
        .openInEditor: [[.ctrl("x"), .ctrl("e")]],
    ]

    /// The config file's `[form-keys]`.
    public static let configTable = "form-keys"

    /// Characters are typed into the form's fields.
    public static let typesText = true

    /// No form action moves: a sequence's first key must be free.
    public var isMove: Bool { false }
}
