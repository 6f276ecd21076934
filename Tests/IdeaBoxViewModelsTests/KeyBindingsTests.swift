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
