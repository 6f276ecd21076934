import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import ServerStore
import SQLiteRecordStore
import Synchronization
import Testing

/// A SQLite store behind its gate: however many requests come at once, at most the gate's
/// limit are inside the store (each blocking a thread), the others wait suspended, and all
/// are answered.
struct GatedRecordStoreTests {
    @Test("Five hundred lookups at once on the server's executor: never more than the gate's limit inside the store, and every one answered")
    func manyCallsAtOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gated-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = GatedRecordStore(try SQLiteRecordStore.open(directory: folder, clock: .system), limit: 3)
        try await store.addAccessToken(hash: "hash", account: "alice", label: "phone")
        let most = Locked(0)
        let answered = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<500 {
                group.addTask(executorPreference: BlockingTaskExecutor.shared) {
                    let found = try await store.account(forAccessTokenHash: "hash")
                    let inside = store.gate.counts.inside
                    most.withLock { $0 = max($0, inside) }
                    return found
                }
            }
            var answered = 0
            for try await account in group where account == "alice" { answered += 1 }
            return answered
        }
        #expect(answered == 500)
        #expect(most.withLock { $0 } <= 3)
        #expect(store.gate.counts.inside == 0 && store.gate.counts.waiting == 0)
    }

    @Test("Past its limit a gate lets the waiting tasks in first come first served, one for each that leaves")
    func lineOrder() async throws {
        let gate = StoreGate(limit: 1)
        let order = Locked<[Int]>([])
        let release = Locked<CheckedContinuation<Void, Never>?>(nil)
        let first = Task {
            try await gate.run {
                await withCheckedContinuation { continuation in release.withLock { $0 = continuation } }
                order.withLock { $0.append(0) }
            }
        }
        try await Poll.until("the first is inside") { release.withLock { $0 != nil } }
        var waiting: [Task<Void, any Error>] = []
        for index in 1...3 {
            waiting.append(Task { try await gate.run { order.withLock { $0.append(index) } } })
            try await Poll.until("task \(index) waits") { gate.counts.waiting == index }
        }
        #expect(gate.counts.inside == 1 && gate.counts.waiting == 3)
        release.withLock { $0 }?.resume()
        try await first.value
        for task in waiting { try await task.value }
        #expect(order.withLock { $0 } == [0, 1, 2, 3])
        #expect(gate.counts.inside == 0 && gate.counts.waiting == 0)
    }

    @Test("A poll's set-up waits behind the other calls, but gets one turn in eight while both lines wait")
    func pollLane() async throws {
        let gate = StoreGate(limit: 1)
        let order = Locked<[String]>([])
        let holder = try await GateHolder(gate)
        // In line, in this order: two polls, then ten other calls, then a third poll.
        let names = ["poll 1", "poll 2"] + (1...10).map { "call \($0)" } + ["poll 3"]
        var waiting: [Task<Void, any Error>] = []
        for (index, name) in names.enumerated() {
            let lane: StoreGate.Lane = name.hasPrefix("poll") ? .poll : .first
            waiting.append(Task {
                try await StoreGate.$lane.withValue(lane) { try await gate.run { order.withLock { $0.append(name) } } }
            })
            try await Poll.until("\(name) waits") { gate.counts.waiting == index + 1 }
        }
        try await holder.release()
        for task in waiting { try await task.value }
        #expect(order.withLock { $0 } == (1...7).map { "call \($0)" } + ["poll 1"] + (8...10).map { "call \($0)" } + ["poll 2", "poll 3"])
        #expect(gate.counts.inside == 0 && gate.counts.waiting == 0)
    }

    @Test("A caller gone while its first call waits in line makes no call; one gone after its first call began makes the rest")
    func callerGoneBeforeItsFirstCall() async throws {
        let gate = StoreGate(limit: 1)
        let holder = try await GateHolder(gate)
        let (gone, calls) = (Locked(false), Locked(0))
        let caller = StoreCaller { gone.withLock { $0 } }
        let waiting = Task {
            try await StoreCaller.$current.withValue(caller) { try await gate.run { calls.withLock { $0 += 1 } } }
        }
        try await Poll.until("the caller waits in line") { gate.counts.waiting == 1 }
        gone.withLock { $0 = true }
        try await holder.release()
        await #expect(throws: StoreCaller.Gone.self) { try await waiting.value }
        #expect(calls.withLock { $0 } == 0)
        #expect(gate.counts.inside == 0 && gate.counts.waiting == 0)

        // A caller whose first call began is never cut halfway: its later calls run though it has gone.
        let (leaving, made) = (Locked(false), Locked(0))
        let started = StoreCaller { leaving.withLock { $0 } }
        try await StoreCaller.$current.withValue(started) {
            try await gate.run { made.withLock { $0 += 1 } }
            leaving.withLock { $0 = true }
            try await gate.run { made.withLock { $0 += 1 } }
        }
        #expect(made.withLock { $0 } == 2)
    }
}
