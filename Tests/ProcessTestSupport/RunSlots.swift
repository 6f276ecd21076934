import Foundation

/// At most `width` short runs of a program at once, awaited in turn: no thread is held while
/// a run waits for its turn. The command-line tests run hundreds of `ideabox` commands, and
/// once their waits hold no thread of the test pool nothing else bounds how many run at once:
/// on a machine of two cores, a full run started them all together and each took seconds
/// (a bound of 2 s on one command's wall time failed at 2.9 s). `shared` allows as many as
/// the machine has cores, as many as the pool's threads allowed when each wait held one.
public actor RunSlots {
    /// The slots the command-line tests share.
    public static let shared = RunSlots(width: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(width: Int) {
        self.width = width
    }

    /// The value of `run`, started once a slot is free; the slot is freed when it returns.
    public nonisolated func run<Value: Sendable>(_ run: @Sendable () async throws -> Value) async throws -> Value {
        await take()
        do {
            let value = try await run()
            await give()
            return value
        } catch {
            await give()
            throw error
        }
    }

    private func take() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the first run waiting, if any (the count stays), else frees it.
    private func give() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
