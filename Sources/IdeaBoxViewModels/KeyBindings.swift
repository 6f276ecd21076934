/// Which keys do which action in one context of the app (`KeyBindings` for the lists,
/// `FormKeys` for the edit form, `SearchKeys` for the search field): the context's own keys
/// by default, any key to any action from the config file. A binding is one key, or two in a
/// row (`g x`).
public struct KeyMap<Action: BindableAction>: Sendable, Equatable {
    /// One or two keys pressed in a row.
    public typealias Sequence = KeySequence

    /// Each action's keys, in the order they were given.
    public private(set) var keys: [Action: [Sequence]]
    private var single: [Key: Action] = [:]
    private var double: [Sequence: Action] = [:]

    /// The context's own keys (`Action.defaultKeys`).
    public static var defaults: KeyMap { KeyMap(uncheckedKeys: Action.defaultKeys) }

    /// Two bindings that cannot both hold.
    public struct Clash: Error, Sendable, Equatable {
        /// The keys both want.
        public var keys: Sequence
        /// The actions that want them.
        public var actions: [Action]

        /// `keys` wanted by `actions`.
        public init(keys: Sequence, actions: [Action]) {
            self.keys = keys
            self.actions = actions
        }
    }

    /// A plain character bound where characters are typed (the form, the search field).
    public struct TypingKey: Error, Sendable, Equatable {
        /// The keys that would stop typing.
        public var keys: Sequence
        /// The action they were given to.
        public var action: Action

        /// `keys` given to `action`.
        public init(keys: Sequence, action: Action) {
            self.keys = keys
            self.action = action
        }
    }

    private init(uncheckedKeys keys: [Action: [Sequence]]) {
        self.keys = keys
        for (action, sequences) in keys {
            for sequence in sequences {
                if sequence.count == 1 { single[sequence[0]] = action } else { double[sequence] = action }
            }
        }
    }

    /// The defaults with `changes` put in place of their actions' keys. Throws the first
    /// `Clash` (one key for two actions, or a sequence starting with a key that does
    /// something other than move), in the order of `Action.allCases`, or a `TypingKey`
    /// where characters are text.
    public init(replacing changes: [Action: [Sequence]]) throws {
        var keys = Action.defaultKeys
        for (action, sequences) in changes { keys[action] = sequences }
        var owner: [Sequence: Action] = [:]
        for action in Action.allCases {
            for sequence in keys[action] ?? [] {
                if Action.typesText, case .char = sequence[0] { throw TypingKey(keys: sequence, action: action) }
                if let other = owner[sequence], other != action {
                    throw Clash(keys: sequence, actions: [other, action])
                }
                owner[sequence] = action
            }
        }
        for action in Action.allCases {
            for sequence in keys[action] ?? [] where sequence.count > 1 {
                if let other = owner[[sequence[0]]], !other.isMove {
                    throw Clash(keys: sequence, actions: [other, action])
                }
            }
        }
        self.init(uncheckedKeys: keys)
    }

    /// What `key` does after `previous` (the key before it, if it may start a sequence):
    /// a two-key sequence first, then the key on its own.
    public func action(for key: Key, after previous: Key?) -> Action? {
        if let previous, let action = double[[previous, key]] { return action }
        return single[key]
    }

    /// Whether `key` starts a two-key sequence.
    public func startsSequence(_ key: Key) -> Bool {
        double.keys.contains { $0.first == key }
    }

    /// The second keys of the sequences `first` starts, each with its action, in the order
    /// of `Action.allCases` (what the hint line offers while `first` waits).
    public func secondKeys(after first: Key) -> [(key: Key, action: Action)] {
        Action.allCases.flatMap { action in
            sequences(for: action).filter { $0.count == 2 && $0[0] == first }.map { (key: $0[1], action: action) }
        }
    }

    /// What a key did where the first key of a sequence does nothing on its own (the form,
    /// the search field).
    public enum Press: Equatable, Sendable {
        /// It starts a sequence: keep it, and pass it as `previous` with the next key.
        case waiting
        /// It is (or ends a sequence that is) this action.
        case action(Action)
        /// It is no action: the context takes it as itself (typing, say).
        case other
    }

    /// What `key` does after `previous` (a key that was `.waiting`): the sequence it ends,
    /// else the key on its own, as a start, an action or neither.
    public func press(_ key: Key, after previous: Key?) -> Press {
        if let previous, let action = double[[previous, key]] { return .action(action) }
        if startsSequence(key) { return .waiting }
        return single[key].map(Press.action) ?? .other
    }

    /// `action`'s keys, the first one given first (empty if the config file took them all).
    public func sequences(for action: Action) -> [Sequence] {
        keys[action] ?? []
    }
}

/// Which keys do which `ListAction` in the lists.
public typealias KeyBindings = KeyMap<ListAction>
/// Which keys do which `FormAction` in the edit form.
public typealias FormKeys = KeyMap<FormAction>
/// Which keys do which `SearchAction` while the search field has focus.
public typealias SearchKeys = KeyMap<SearchAction>

/// Keys by the names the config file uses: `q`, `ctrl-r`, `enter`, `space`,
/// `page-down`, `f1`, and two keys in a row as `g x`.
public enum KeyName {
    private static let named: [String: Key] = [
        "enter": .enter, "tab": .tab, "shift-tab": .backTab, "backspace": .backspace, "delete": .delete,
        "up": .up, "down": .down, "left": .left, "right": .right, "home": .home, "end": .end,
        "page-up": .pageUp, "page-down": .pageDown, "esc": .escape, "space": .char(" "),
    ]

    /// The keys `name` stands for, or nil if it names none (or more than two).
    public static func sequence(_ name: String) -> KeySequence? {
        let parts = name.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(parts.count) else { return nil }
        var keys: KeySequence = []
        for part in parts {
            guard let key = key(String(part)) else { return nil }
            keys.append(key)
        }
        return keys
    }

    /// The key one name stands for: a single character, `ctrl-` and a letter, `f1`…`f12`,
    /// or a named key.
    public static func key(_ name: String) -> Key? {
        if name.count == 1, let character = name.first { return .char(character) }
        let lowered = name.lowercased()
        if let key = named[lowered] { return key }
        if lowered.hasPrefix("ctrl-"), lowered.count == 6, let letter = lowered.last, letter.isLetter, letter.isASCII {
            return .ctrl(letter)
        }
        if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), (1...12).contains(number) { return .f(number) }
        return nil
    }

    /// The name of `keys`, as `sequence(_:)` reads it.
    public static func name(_ keys: KeySequence) -> String {
        keys.map(name).joined(separator: " ")
    }

    /// The name of one key.
    public static func name(_ key: Key) -> String {
        switch key {
        case .char(" "): "space"
        case .char(let character): String(character)
        case .ctrl(let letter): "ctrl-\(letter)"
        case .f(let number): "f\(number)"
        default: named.first { $0.value == key }?.key ?? "?"
        }
    }
}
