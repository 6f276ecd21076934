import CHeap
import Foundation
import ServiceLifecycle

/// Gives back to the system the memory a burst of requests freed, or many connections that
/// closed.
///
/// glibc keeps what is freed for the next allocation, and gives memory back on its own only
/// from the top of each heap. After a burst (a round of pushes waking a thousand devices,
/// each answered and polling again at once) the pages the burst freed lie between objects
/// that stay, such as the polls that came after it, so the process stays near the burst's
/// high-water mark: with ten thousand devices, 325–339 MiB, of which trimming
/// (`malloc_trim(0)`, which gives back every whole page the heap holds free) gives back
/// 15–25 MiB (issue 40, BENCHMARKS.md). Ten thousand connections that close leave 130–250
/// MiB the same way, which a trim gives back whole.
///
/// It looks once a second, and trims only as `HeapTrimRule` says: once the memory has grown,
/// or many connections have closed, and the memory has then settled. A server whose memory
/// stays level and whose connections stay open, however busy, is not trimmed at all. (glibc
/// can tell how much it holds free, `mallinfo2`, but that walks every free chunk with the
/// arena locked: 3–18 ms with ten thousand devices, too dear to ask once a second.)
struct HeapTrimmer: Service {
    /// How often it looks.
    var interval: Duration = .seconds(1)
    var rule = HeapTrimRule()
    /// How many connections have closed since the server started.
    var connectionsClosed: @Sendable () -> Int
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

    /// One look: trims if `rule` says so, and tells it where the memory stands after.
    func look(_ rule: inout HeapTrimRule) {
        guard let now = resident() else { return }
        let closed = connectionsClosed()
        guard rule.shouldTrim(resident: now, connectionsClosed: closed) else { return }
        trim()
        rule.trimmed(resident: resident() ?? now, connectionsClosed: closed)
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
/// it has been since the last trim (or since the first look), or `closures` connections
/// have closed since then, and the memory has then settled, having grown at no look of
/// `calmLooks` in a row.
///
/// Never while the memory grows: a trim in the middle of a burst gives back only what the
/// burst has freed so far, which the burst's next requests take again, and it holds each
/// arena's lock while it walks the arena's free chunks (0.1–22 ms with 300 MiB of heap),
/// so that the requests allocating there wait. Once settled, one trim gives back what the
/// burst left free. Connections that close free what they held (13–27 KiB each) without
/// the memory growing first; 512 of them free about as much as `growth`.
struct HeapTrimRule: Sendable {
    /// How far above its lowest the resident memory may go before a trim, in bytes.
    var growth: Int
    /// How many connections may close before a trim.
    var closures: Int
    /// How many looks in a row at which the memory did not grow make it settled.
    var calmLooks: Int
    private var lowest: Int?
    private var previous: Int?
    private var closedBefore: Int?
    /// Whether the memory has grown, or connections closed, enough for a trim since the last.
    private var due = false
    private var calm = 0

    init(growth: Int = 8 << 20, closures: Int = 512, calmLooks: Int = 2) {
        self.growth = growth
        self.closures = closures
        self.calmLooks = calmLooks
    }

    /// Whether memory `resident` now, with `connectionsClosed` closed since the server
    /// started, calls for a trim.
    mutating func shouldTrim(resident: Int, connectionsClosed: Int) -> Bool {
        defer { previous = resident }
        let lowest = min(lowest ?? resident, resident)
        self.lowest = lowest
        let closedBefore = closedBefore ?? connectionsClosed
        self.closedBefore = closedBefore
        if resident - lowest >= growth || connectionsClosed - closedBefore >= closures { due = true }
        guard due else { return false }
        calm = resident <= (previous ?? resident) ? calm + 1 : 0
        guard calm >= calmLooks else { return false }
        due = false
        calm = 0
        return true
    }

    /// A trim left `resident` bytes, with `connectionsClosed` closed: where the next growth
    /// and closures are counted from.
    mutating func trimmed(resident: Int, connectionsClosed: Int) {
        lowest = resident
        previous = resident
        closedBefore = connectionsClosed
    }
}
