import CHeap
import Foundation
import ServiceLifecycle

/// Gives back to the system the memory a burst of requests freed, once a second at most.
///
/// glibc keeps what is freed for the next allocation, and gives memory back on its own only
/// from the top of each heap. After a burst (a round of pushes waking a thousand devices,
/// each answered and polling again at once) the pages the burst freed lie between objects
/// that stay, such as the polls that came after it, so the process stays at the burst's
/// high-water mark: with ten thousand devices, 330 MiB where about 285 are in use
/// (issue 40). Trimming (`malloc_trim(0)`) gives back every whole page the heap holds free.
///
/// It trims only when the resident memory has grown by `HeapTrimRule.growth` since its
/// lowest, so a server whose memory stays level (however busy) is not trimmed at all.
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

/// When `HeapTrimmer` trims: once the resident memory is `growth` above the lowest it has
/// been since the last trim (or since the first look).
///
/// Memory that grows because it is in use (devices connecting) is trimmed too, once per
/// `growth`; a trim there gives little back and costs a walk of the heap's free lists, so
/// `growth` is large enough that this stays rare.
struct HeapTrimRule: Sendable {
    /// How far above its lowest the resident memory may go before a trim, in bytes.
    var growth: Int
    private var lowest: Int?

    init(growth: Int = 8 << 20) {
        self.growth = growth
    }

    /// Whether memory `resident` now calls for a trim.
    mutating func shouldTrim(resident: Int) -> Bool {
        guard let lowest, resident >= lowest else {
            lowest = resident
            return false
        }
        return resident - lowest >= growth
    }

    /// A trim left `resident` bytes: the lowest to grow from next.
    mutating func trimmed(resident: Int) {
        lowest = resident
    }
}
