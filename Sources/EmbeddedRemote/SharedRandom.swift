import Synchronization

/// One random number generator shared by every client of a `SimulatedNetwork`, so a seeded
/// generator gives one reproducible sequence of draws however many clients there are.
final class SharedRandom: Sendable {
    private let generator: Mutex<any RandomNumberGenerator & Sendable>

    /// Draws from `generator`.
    init(_ generator: any RandomNumberGenerator & Sendable) {
        self.generator = Mutex(generator)
    }

    /// A uniformly distributed number in `0..<1`, from the top 53 bits of the next draw.
    func nextUnitInterval() -> Double {
        let bits = generator.withLock { $0.next() }
        return Double(bits >> 11) * 0x1p-53
    }
}
