import IdeaBoxFoundation
import ProcessTestSupport
@testable import ServerStore
import Testing

/// Reads shared while they wait at the gate: a task that asks while a read of the same key
/// waits in line takes that read's value; a read that has begun is never joined, so no
/// task is answered from a snapshot taken before it asked.
struct WaitingReadsTests {
    @Test("Five tasks asking for one key while its read waits in line cost one read, and all take its value")
    func joinedWhileWaiting() async throws {
        let (gate, reads) = (StoreGate(limit: 1), WaitingReads<String, Int>())
        let holder = try await GateHolder(gate)
        let made = Counter()
        var askers: [Task<Int, any Error>] = []
        for index in 0..<5 {
            askers.append(Task { try await reads.value("alice", through: gate) { made.add() } })
            try await Poll.until("asker \(index) waits") { gate.counts.waiting == 1 && reads.count == 1 && reads.joined == index }
        }
        // Another key is a read of its own.
        let bob = Task { try await reads.value("bob", through: gate) { made.add() + 100 } }
        try await Poll.until("bob's read waits") { gate.counts.waiting == 2 }
        try await holder.release()
        var values: [Int] = []
        for asker in askers { values.append(try await asker.value) }
        #expect(values == [1, 1, 1, 1, 1])
        #expect(try await bob.value == 102)
        #expect(made.value == 2 && reads.count == 0 && gate.counts.inside == 0)
    }

    @Test("A task asking while the key's read has begun waits for a read of its own, begun after it asked")
    func neverJoinsABegunRead() async throws {
        let gate = StoreGate(limit: 2)
        let reads = WaitingReads<String, String>()
        let inRead = Locked<CheckedContinuation<Void, Never>?>(nil)
        let snapshot = Locked("before the change")
        let first = Task {
            try await reads.value("alice", through: gate) {
                let seen = snapshot.withLock { $0 }
                await withCheckedContinuation { continuation in inRead.withLock { $0 = continuation } }
                return seen
            }
        }
        try await Poll.until("the first read has begun") { inRead.withLock { $0 != nil } }
        snapshot.withLock { $0 = "after the change" }
        let second = try await reads.value("alice", through: gate) { snapshot.withLock { $0 } }
        #expect(second == "after the change")
        inRead.withLock { $0 }?.resume()
        #expect(try await first.value == "before the change")
    }

    @Test("A read's error reaches every task that joined it; a read refused because its caller left leaves the joiners to read for themselves")
    func errorsAndGoneCallers() async throws {
        struct Broken: Error {}
        let (gate, reads) = (StoreGate(limit: 1), WaitingReads<String, Int>())
        var holder = try await GateHolder(gate)
        let failing = Task { try await reads.value("alice", through: gate) { throw Broken() } }
        try await Poll.until("the failing read waits") { reads.count == 1 }
        let joiner = Task { try await reads.value("alice", through: gate) { 1 } }
        try await Poll.until("the joiner has joined") { reads.joined == 1 }
        try await holder.release()
        await #expect(throws: Broken.self) { try await failing.value }
        await #expect(throws: Broken.self) { try await joiner.value }

        holder = try await GateHolder(gate)
        let gone = Locked(false)
        let leaving = Task {
            try await StoreCaller.$current.withValue(StoreCaller { gone.withLock { $0 } }) {
                try await reads.value("alice", through: gate) { 7 }
            }
        }
        try await Poll.until("the leaving caller's read waits") { reads.count == 1 }
        let staying = Task { try await reads.value("alice", through: gate) { 8 } }
        try await Poll.until("the staying one has joined") { reads.joined == 1 }
        gone.withLock { $0 = true }
        try await holder.release()
        await #expect(throws: StoreCaller.Gone.self) { try await leaving.value }
        #expect(try await staying.value == 8, "read for itself")
        #expect(reads.count == 0 && gate.counts.inside == 0 && gate.counts.waiting == 0)
    }
}

/// Counts the reads made, from any task.
private final class Counter: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    /// Counts one more; returns the count.
    func add() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
