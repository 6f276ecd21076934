@testable import CloudServer
import Testing

/// When the server gives freed memory back: only once its resident memory has grown by the
/// rule's `growth` above the lowest it has been since the last trim.
@Suite struct HeapTrimRuleTests {
    /// Whether `rule` calls for a trim at each of `residents`, in MiB, looked at in turn.
    private static func looks(_ rule: inout HeapTrimRule, at residents: [Int]) -> [Bool] {
        residents.map { rule.shouldTrim(resident: $0 << 20) }
    }

    @Test("Memory that stays level, or moves by less than the growth, is never trimmed, however often it is looked at")
    func levelMemoryIsNotTrimmed() {
        var rule = HeapTrimRule(growth: 8 << 20)
        let calls = Self.looks(&rule, at: (0..<1_000).map { 300 + $0 % 8 })
        #expect(!calls.contains(true))
    }

    @Test("Growing by the growth above the lowest calls for a trim, and the next is measured from where the trim left the memory")
    func growthCallsForATrimFromWhereTheLastLeftIt() {
        var rule = HeapTrimRule(growth: 8 << 20)
        #expect(Self.looks(&rule, at: [100, 107, 108]) == [false, false, true])
        rule.trimmed(resident: 103 << 20)
        #expect(Self.looks(&rule, at: [110, 111]) == [false, true])
        // A trim that gave nothing back (memory in use): the next waits for as much growth again.
        rule.trimmed(resident: 111 << 20)
        #expect(Self.looks(&rule, at: [118, 119]) == [false, true])
    }

    @Test("The lowest follows the memory down, so growth after a fall is measured from the fall")
    func theLowestFollowsTheMemoryDown() {
        var rule = HeapTrimRule(growth: 8 << 20)
        #expect(Self.looks(&rule, at: [100, 90, 97, 98]) == [false, false, false, true])
    }
}
