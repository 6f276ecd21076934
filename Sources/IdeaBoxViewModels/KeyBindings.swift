/// Which keys do which `ListAction` in the lists: today's keys by default, any key to any
/// action from the config file. A binding is one key, or two in a row (`g x`).
public struct KeyBindings: Sendable, Equatable {
    /// One or two keys pressed in a row.
    public typealias Sequence = [Key]

    /// Each action's keys, in the order they were given.
    public private(set) var keys: [ListAction: [Sequence]]
    private var single: [Key: ListAction] = [:]
    private var double: [Sequence: ListAction] = [:]

    /// The app's own keys (DESIGN.md's table, plus the selection's, copy's and open's).
    public static let defaults = KeyBindings(uncheckedKeys: [
        .quit: [[.char("q")], [.ctrl("c")]],
        .allIdeas: [[.char("1")]],
        .completed: [[.char("2")]],
        .searchTab: [[.char("3")]],
        .nextTab: [[.tab]],
        .previousTab: [[.backTab]],
        .up: [[.up], [.char("k")]],
        .down: [[.down], [.char("j")]],
        .pageUp: [[.pageUp]],
        .pageDown: [[.pageDown]],
        .first: [[.home], [.char("g")]],
        .last: [[.end], [.char("G")]],
        .new: [[.char("n")]],
        .edit: [[.enter], [.char("e")]],
        .openInEditor: [[.char("E")]],
        .cycleOrder: [[.char("S")]],
        .preview: [[.char("p")]],
        .toggleDone: [[.char(" ")], [.char("x")]],
        .delete: [[.char("d")], [.delete]],
        .history: [[.char("h")]],
        .undo: [[.char("u")]],
        .redo: [[.ctrl("r")]],
        .search: [[.char("/")]],
        .help: [[.char("?")], [.f(1)]],
        .sync: [[.char("s")]],
        .network: [[.char("o")]],
        .syncLog: [[.char("l")]],
        .select: [[.char("v")]],
        .leaveSelection: [[.escape]],
        .copy: [[.char("y")]],
        .openLink: [[.char("g"), .char("x")]],
    ])

    /// Two bindings that cannot both hold.
    public struct Clash: Error, Sendable, Equatable {
        /// The keys both want.
        public var keys: Sequence
        /// The actions that want them.
        public var actions: [ListAction]

        /// `keys` wanted by `actions`.
        public init(keys: Sequence, actions: [ListAction]) {
            self.keys = keys
            self.actions = actions
        }
    }

    private init(uncheckedKeys keys: [ListAction: [Sequence]]) {
        self.keys = keys
        for (action, sequences) in keys {
            for sequence in sequences {
                if sequence.count == 1 { single[sequence[0]] = action } else { double[sequence] = action }
            }
        }
    }

    /// The defaults with `changes` put in place of their actions' keys; throws the first
    /// clash (one key for two actions, or a sequence starting with a key that does
    /// something other than move), in the order of `ListAction.allCases`.
    public init(replacing changes: [ListAction: [Sequence]]) throws(Clash) {
        var keys = Self.defaults.keys
        for (action, sequences) in changes { keys[action] = sequences }
        var owner: [Sequence: ListAction] = [:]
        for action in ListAction.allCases {
            for sequence in keys[action] ?? [] {
                if let other = owner[sequence], other != action {
                    throw Clash(keys: sequence, actions: [other, action])
                }
                owner[sequence] = action
            }
        }
        for action in ListAction.allCases {
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
    public func action(for key: Key, after previous: Key?) -> ListAction? {
        if let previous, let action = double[[previous, key]] { return action }
        return single[key]
    }

    /// Whether `key` starts a two-key sequence.
    public func startsSequence(_ key: Key) -> Bool {
        double.keys.contains { $0.first == key }
    }
}

/// Keys by the names the config file and the help use: `q`, `ctrl-r`, `enter`, `space`,
/// `page-down`, `f1`, and two keys in a row as `g x`.
public enum KeyName {
    private static let named: [String: Key] = [
        "enter": .enter, "tab": .tab, "shift-tab": .backTab, "backspace": .backspace, "delete": .delete,
        "up": .up, "down": .down, "left": .left, "right": .right, "home": .home, "end": .end,
        "page-up": .pageUp, "page-down": .pageDown, "esc": .escape, "space": .char(" "),
    ]

    /// The keys `name` stands for, or nil if it names none (or more than two).
    public static func sequence(_ name: String) -> KeyBindings.Sequence? {
        let parts = name.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(parts.count) else { return nil }
        var keys: KeyBindings.Sequence = []
        for part in parts {
            guard let key = key(String(part)) else { return nil }
            keys.append(key)
        }
        return keys
    }

    /// The key one name stands for: a single character, `ctrl-` and a letter, `f1`…`f12`, or a named key.
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
    public static func name(_ keys: KeyBindings.Sequence) -> String {
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
