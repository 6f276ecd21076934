@testable import CloudServer
import Testing

/// When the server gives freed memory back: once its resident memory has grown by the rule's
/// `growth` above the lowest it has been since the last trim, or `closures` connections have
/// closed, and the memory has then settled; never while it grows.
@Suite struct HeapTrimRuleTests {
    /// Whether `rule` calls for a trim at each of `residents`, in MiB, looked at in turn, with
    /// as many connections closed by then as `closed` says (none if it is empty).
    private static func looks(_ rule: inout HeapTrimRule, at residents: [Int], closed: [Int] = []) -> [Bool] {
        residents.indices.map { rule.shouldTrim(resident: residents[$0] << 20, connectionsClosed: closed.isEmpty ? 0 : closed[$0]) }
    }

    @Test("Memory that stays level, or moves by less than the growth, is never trimmed, however often it is looked at")
    func levelMemoryIsNotTrimmed() {
        var rule = HeapTrimRule(growth: 8 << 20, closures: 512, calmLooks: 2)
        let calls = Self.looks(&rule, at: (0..<1_000).map { 300 + $0 % 8 })
        #expect(!calls.contains(true))
    }

    @Test("Memory that grew by the growth is trimmed once it has grown at no look of two in a row, not while it grows")
    func grownMemoryIsTrimmedOnceSettled() {
        var rule = HeapTrimRule(growth: 8 << 20, closures: 512, calmLooks: 2)
        #expect(Self.looks(&rule, at: [100, 104, 108, 112, 120, 120, 119]) == [false, false, false, false, false, false, true])
        rule.trimmed(resident: 103 << 20, connectionsClosed: 0)
        // Level after the trim: nothing more.
        #expect(!Self.looks(&rule, at: [103, 104, 103, 103, 102, 103]).contains(true))
    }

    @Test("The next growth is measured from where the last trim left the memory")
    func theNextGrowthIsMeasuredFromTheTrim() {
        var rule = HeapTrimRule(growth: 8 << 20, closures: 512, calmLooks: 2)
        #expect(Self.looks(&rule, at: [100, 108, 108, 108]) == [false, false, false, true])
        rule.trimmed(resident: 103 << 20, connectionsClosed: 0)
        #expect(Self.looks(&rule, at: [110, 110, 110]) == [false, false, false])
        #expect(Self.looks(&rule, at: [111, 111, 110]) == [false, false, true])
        // A trim that gave nothing back (memory in use): the next waits for as much growth again.
        rule.trimmed(resident: 110 << 20, connectionsClosed: 0)
        #expect(Self.looks(&rule, at: [117, 117, 117]) == [false, false, false])
    }

    @Test("The lowest follows the memory down, so growth after a fall is measured from the fall")
    func theLowestFollowsTheMemoryDown() {
        var rule = HeapTrimRule(growth: 8 << 20, closures: 512, calmLooks: 2)
        #expect(Self.looks(&rule, at: [100, 90, 97, 98, 98, 98]) == [false, false, false, false, false, true])
    }

    @Test("A dip in the middle of a burst does not settle it: the looks at which it did not grow are counted in a row")
    func aDipDoesNotSettleABurst() {
        var rule = HeapTrimRule(growth: 8 << 20, closures: 512, calmLooks: 2)
        #expect(Self.looks(&rule, at: [100, 108, 107, 110, 109, 109]) == [false, false, false, false, false, true])
    }

    @Test("512 connections closed call for a trim once the memory has settled, though it never grew; 511 do not")
    func closedConnectionsCallForATrim() {
        var rule = HeapTrimRule(growth: 8 << 20, closures: 512, calmLooks: 2)
        #expect(!Self.looks(&rule, at: [200, 200, 200, 200], closed: [1_000, 1_200, 1_400, 1_511]).contains(true))
        #expect(Self.looks(&rule, at: [200, 201, 201, 200], closed: [1_512, 1_512, 1_600, 1_600]) == [false, false, false, true])
        // Counted again from the trim.
        rule.trimmed(resident: 150 << 20, connectionsClosed: 1_600)
        #expect(!Self.looks(&rule, at: [150, 150, 150], closed: [1_700, 2_000, 2_111]).contains(true))
        #expect(Self.looks(&rule, at: [150, 150], closed: [2_112, 2_112]) == [false, true])
    }
}
