/// Every context's keys: the lists', the edit form's and the search field's. The texts
/// that name a key (help, hints, messages) read them here, so they name the key bound.
public struct AppKeys: Sendable, Equatable {
    /// The lists' keys (the config file's `[keys]`).
    public var list: KeyBindings
    /// The edit form's keys (`[form-keys]`).
    public var form: FormKeys
    /// The search field's keys (`[search-keys]`).
    public var search: SearchKeys

    /// `list`, `form` and `search`, each the defaults unless given.
    public init(list: KeyBindings = .defaults, form: FormKeys = .defaults, search: SearchKeys = .defaults) {
        self.list = list
        self.form = form
        self.search = search
    }
}
