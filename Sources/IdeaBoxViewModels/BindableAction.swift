/// What a key may be bound to in one context of the app: the lists (`ListAction`), the edit
/// form (`FormAction`) or the search field (`SearchAction`). Each context has its own table
/// in the config file; a key may do one thing in a list and another in the form, but never
/// two things in one context.
public protocol BindableAction: RawRepresentable, CaseIterable, Hashable, Sendable
where RawValue == String, AllCases == [Self] {
    /// The context's keys before any config file: what the app has always done.
    static var defaultKeys: [Self: [KeySequence]] { get }
    /// The config file's table for this context (`keys`, `form-keys`, `search-keys`).
    static var configTable: String { get }
    /// Whether typed characters are text in this context (a field has focus), so that a
    /// plain character may not be bound there: it would no longer type.
    static var typesText: Bool { get }
    /// Whether the action only moves the cursor: only such an action may share its key with
    /// the first key of a two-key sequence (`g` goes to the top; `g x` opens a link).
    var isMove: Bool { get }
}

/// One key, or two pressed in a row (`g x`, `ctrl-x ctrl-e`).
public typealias KeySequence = [Key]
