import CHeap
import Foundation
import ServiceLifecycle

/// Gives back to the system the memory a burst of requests freed.
///
/// glibc keeps what is freed for the next allocation, and gives memory back on its own only
/// from the top of each heap. After a burst (a round of pushes waking a thousand devices,
/// each answered and polling again at once) the pages the burst freed lie between objects
/// that stay, such as the polls that came after it, so the process stays near the burst's
/// high-water mark: with ten thousand devices, 325–339 MiB, of which trimming
/// (`malloc_trim(0)`, which gives back every whole page the heap holds free) gives back
/// 15–25 MiB (issue 40, BENCHMARKS.md).
///
/// It looks once a second, and trims only as `HeapTrimRule` says: once the memory has grown
/// and then settled. A server whose memory stays level, however busy, is not trimmed at all.
struct HeapTrimmer: Service {
    /// How often it looks.
    var interval: Duration = .seconds(1)
    var rule = HeapTrimRule()
    /// The process's resident memory now, in bytes (nil if it cannot be read).
    var resident: @Sendable () -> Int? = { HeapTrimmer.residentBytes() }
    /// Gives free pages back to the system.
    var trim: @Sendable () -> Void = { _ = cheap_trim() }

    func run() async throws {
        var rule = rule
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            look(&rule)
        }
    }

    /// One look: trims if `rule` says the memory has grown enough, and tells it where the
    /// memory stands after.
    func look(_ rule: inout HeapTrimRule) {
        guard let now = resident(), rule.shouldTrim(resident: now) else { return }
        trim()
        rule.trimmed(resident: resident() ?? now)
    }

    /// This process's resident memory, from `/proc/self/statm` (its second field, in pages):
    /// one small read, no walk of the heap.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// When `HeapTrimmer` trims: once the resident memory has grown `growth` above the lowest
/// it has been since the last trim (or since the first look), and has then settled, having
/// grown at no look of `calmLooks` in a row.
///
/// Never while the memory grows: a trim in the middle of a burst gives back only what the
/// burst has freed so far, which the burst's next requests take again, and it holds each
/// arena's lock while it walks the arena's free chunks (up to 20 ms with 300 MiB of heap),
/// so that the requests allocating there wait. Once settled, one trim gives back what the
/// burst left free, and what a server keeps beyond what it uses is less than `growth`.
struct HeapTrimRule: Sendable {
    /// How far above its lowest the resident memory may go before a trim, in bytes.
    var growth: Int
    /// How many looks in a row at which the memory did not grow make it settled.
    var calmLooks: Int
    private var lowest: Int?
    private var previous: Int?
    /// Whether the memory has grown by `growth`, and no trim has been made since.
    private var grown = false
    private var calm = 0

    init(growth: Int = 8 << 20, calmLooks: Int = 2) {
        self.growth = growth
        self.calmLooks = calmLooks
    }

    /// Whether memory `resident` now calls for a trim.
    mutating func shouldTrim(resident: Int) -> Bool {
        defer { previous = resident }
        let lowest = min(lowest ?? resident, resident)
        self.lowest = lowest
        if resident - lowest >= growth { grown = true }
        guard grown else { return false }
        calm = resident <= (previous ?? resident) ? calm + 1 : 0
        guard calm >= calmLooks else { return false }
        grown = false
        calm = 0
        return true
    }

    /// A trim left `resident` bytes: the lowest to grow from next.
    mutating func trimmed(resident: Int) {
        lowest = resident
        previous = resident
    }
}
