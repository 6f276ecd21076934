@testable import CloudServer
import Foundation
import IdeaBoxFoundation
import Testing

/// `serve`'s trimmer: one look trims when the rule says so, and the real trim gives back
/// the pages of memory freed between allocations that stay, which glibc keeps otherwise.
@Suite struct HeapTrimmerTests {
    private static let mib = 1 << 20

    @Test("A look trims once the memory has grown by the rule's growth and settled, and the next look measures from where the trim left it")
    func aLookTrimsGrownMemoryOnceSettled() {
        let memory = Locked([100, 109, 109, 108, 101, 105].map { $0 << 20 })
        let trims = Locked(0)
        let trimCount = { trims.withLock { $0 } }
        let trimmer = HeapTrimmer(
            rule: HeapTrimRule(growth: 8 << 20, calmLooks: 2),
            connectionsClosed: { 0 },
            resident: { memory.withLock { $0.isEmpty ? nil : $0.removeFirst() } },
            trim: { trims.withLock { $0 += 1 } })
        var rule = trimmer.rule
        for _ in 0..<3 { trimmer.look(&rule) }  // 100, 109 (grown), 109: not yet settled
        #expect(trimCount() == 0)
        trimmer.look(&rule)  // 108: settled, trimmed, and 101 read after
        #expect(trimCount() == 1)
        trimmer.look(&rule)  // 105: 4 above the trim's 101
        #expect(trimCount() == 1)
        trimmer.look(&rule)  // nothing to read: no trim
        #expect(trimCount() == 1)
    }

    @Test("The resident memory read from /proc is this process's, as its status file tells it")
    func residentMemoryIsThisProcesses() throws {
        let resident = try #require(HeapTrimmer.residentBytes())
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        // Read one after the other, while other tests run: within 64 MiB of each other.
        #expect(abs(resident - kilobytes * 1024) < 64 * Self.mib)
        #expect(resident > 8 * Self.mib)
    }

    @Test("The real trim gives back memory freed between allocations that stay (64 MiB of it), which the heap kept until then")
    func theRealTrimGivesBackFreedPages() throws {
        // 2,048 blocks of 64 KiB, one after the other, every other one freed: the holes lie
        // between blocks that stay, where glibc does not give memory back on its own.
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<2_048 {
            let block = try #require(malloc(64 << 10))
            memset(block, 1, 64 << 10)
            blocks.append(block)
        }
        let (freed, kept) = (stride(from: 0, to: blocks.count, by: 2).map { blocks[$0] }, stride(from: 1, to: blocks.count, by: 2).map { blocks[$0] })
        defer { kept.forEach { free($0) } }
        freed.forEach { free($0) }
        let before = try #require(HeapTrimmer.residentBytes())
        HeapTrimmer(connectionsClosed: { 0 }).trim()
        let after = try #require(HeapTrimmer.residentBytes())
        #expect(before - after > 32 * Self.mib, "resident \(before / Self.mib) MiB before the trim, \(after / Self.mib) MiB after")
    }
}
