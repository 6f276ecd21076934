import IdeaBoxViewModels
import Testing

/// `KeyBindings` and `KeyName`: the defaults, replacing an action's keys, clashes, names.
@Suite struct KeyBindingsTests {
    @Test func theDefaultsAreTodaysKeys() {
        let bindings = KeyBindings.defaults
        #expect(bindings.action(for: .char("x"), after: nil) == .toggleDone)
        #expect(bindings.action(for: .char(" "), after: nil) == .toggleDone)
        #expect(bindings.action(for: .ctrl("c"), after: nil) == .quit)
        #expect(bindings.action(for: .char("g"), after: nil) == .first)
        #expect(bindings.action(for: .char("x"), after: .char("g")) == .openLink)
        #expect(bindings.action(for: .char("j"), after: .char("g")) == .down)
        #expect(bindings.startsSequence(.char("g")))
        #expect(!bindings.startsSequence(.char("x")))
    }

    @Test func theSecondKeysAfterAFirstAreItsSequencesInTheActionsOrder() throws {
        #expect(KeyBindings.defaults.secondKeys(after: .char("g")).map(\.key) == [.char("x")])
        #expect(KeyBindings.defaults.secondKeys(after: .char("g")).map(\.action) == [.openLink])
        #expect(KeyBindings.defaults.secondKeys(after: .char("x")).isEmpty)
        let remapped = try KeyBindings(replacing: [.openLink: [[.char("g"), .char("o")]], .copy: [[.char("g"), .char("c")]]])
        #expect(remapped.secondKeys(after: .char("g")).map(\.action) == [.copy, .openLink], "in the order of ListAction.allCases")
    }

    @Test func everyActionHasADefaultKey() {
        for action in ListAction.allCases {
            #expect(KeyBindings.defaults.keys[action]?.isEmpty == false, "\(action)")
        }
    }

    @Test func replacingAnActionsKeysDropsItsOldOnes() throws {
        let bindings = try KeyBindings(replacing: [.quit: [[.char("Q")]]])
        #expect(bindings.action(for: .char("Q"), after: nil) == .quit)
        #expect(bindings.action(for: .char("q"), after: nil) == nil)
    }

    @Test func oneKeyForTwoActionsIsAClash() {
        #expect(throws: KeyBindings.Clash(keys: [.char("x")], actions: [.toggleDone, .delete])) {
            try KeyBindings(replacing: [.delete: [[.char("x")]]])
        }
    }

    @Test func aSequenceMayStartOnlyWithAMoveOrAFreeKey() throws {
        #expect(throws: KeyBindings.Clash.self) { try KeyBindings(replacing: [.copy: [[.char("d"), .char("y")]]]) }
        let free = try KeyBindings(replacing: [.copy: [[.char("z"), .char("y")]]])
        #expect(free.action(for: .char("y"), after: .char("z")) == .copy)
    }

    @Test func theFormAndTheSearchFieldHaveKeysOfTheirOwn() throws {
        #expect(FormKeys.defaults.action(for: .ctrl("s"), after: nil) == .save)
        #expect(FormKeys.defaults.action(for: .f(2), after: nil) == .save)
        #expect(FormKeys.defaults.action(for: .ctrl("e"), after: .ctrl("x")) == .openInEditor)
        #expect(FormKeys.defaults.press(.ctrl("x"), after: nil) == .waiting)
        #expect(FormKeys.defaults.press(.ctrl("e"), after: .ctrl("x")) == .action(.openInEditor))
        #expect(FormKeys.defaults.press(.char("a"), after: .ctrl("x")) == .other)
        #expect(SearchKeys.defaults.action(for: .escape, after: nil) == .leave)
        for action in FormAction.allCases { #expect(FormKeys.defaults.sequences(for: action).isEmpty == false, "\(action)") }
        for action in SearchAction.allCases { #expect(SearchKeys.defaults.sequences(for: action).isEmpty == false, "\(action)") }
        // One key may do one thing in a list and another in the form: each context is checked alone.
        let form = try FormKeys(replacing: [.save: [[.ctrl("r")]]])
        #expect(form.action(for: .ctrl("r"), after: nil) == .save)
        #expect(KeyBindings.defaults.action(for: .ctrl("r"), after: nil) == .redo)
    }

    @Test func twoFormActionsOnOneKeyClash() {
        #expect(throws: FormKeys.Clash(keys: [.escape], actions: [.save, .cancel])) {
            try FormKeys(replacing: [.save: [[.escape]]])
        }
        #expect(throws: SearchKeys.Clash(keys: [.tab], actions: [.results, .nextTab])) {
            try SearchKeys(replacing: [.results: [[.tab]]])
        }
        // Ctrl-X starts Ctrl-X Ctrl-E: it may not be an action of its own.
        #expect(throws: FormKeys.Clash.self) { try FormKeys(replacing: [.nextField: [[.ctrl("x")]]]) }
    }

    @Test func aPlainCharacterCannotBeBoundWhereItWouldType() throws {
        #expect(throws: FormKeys.TypingKey(keys: [.char("s")], action: .save)) {
            try FormKeys(replacing: [.save: [[.char("s")]]])
        }
        #expect(throws: SearchKeys.TypingKey(keys: [.char(" ")], action: .leave)) {
            try SearchKeys(replacing: [.leave: [[.char(" ")]]])
        }
        // In a list any character may do anything.
        _ = try KeyBindings(replacing: [.copy: [[.char("c")]]])
    }

    @Test func keyNamesReadAndWriteBack() {
        for name in ["q", "ctrl-r", "enter", "space", "page-down", "f1", "g x", "shift-tab", "esc", "G"] {
            let keys = KeyName.sequence(name)
            #expect(keys != nil, "\(name)")
            #expect(keys.map(KeyName.name) == name)
        }
        #expect(KeyName.sequence("ctrl-1") == nil)
        #expect(KeyName.sequence("a b c") == nil)
        #expect(KeyName.sequence("") == nil)
        #expect(KeyName.sequence("hyper-q") == nil)
    }

    @Test func linksAreFoundWithoutTheirSentencesPunctuation() {
        #expect(Links.first(in: "see https://example.com/a?b=1, then") == "https://example.com/a?b=1")
        #expect(Links.first(in: "(http://x.org/p).") == "http://x.org/p")
        #expect(Links.first(in: "參考「https://例子.tw/頁」") == "https://例子.tw/頁")
        #expect(Links.first(in: "no link, http:// alone") == nil)
        #expect(Links.ranges(in: "a https://a.b c http://c.d").count == 2)
    }
}
