import IdeaBoxFoundation
import Synchronization

/// Where keys, salts, nonces and recovery keys get their randomness: the system's
/// cryptographic generator in the product, a seeded one in tests (so that a test's keys and
/// blobs are the same on every run). Passed in, never global.
public struct RandomBytes: Sendable {
    private let draw: @Sendable (Int) -> [UInt8]

    /// A source whose bytes `draw(count)` returns (exactly `count` of them).
    public init(_ draw: @escaping @Sendable (Int) -> [UInt8]) {
        self.draw = draw
    }

    /// The operating system's cryptographically secure generator (getrandom(2) on Linux).
    public static let system = RandomBytes { count in
        // Eight bytes a draw: each draw is a getrandom(2) call, and a seal needs twelve bytes.
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
        }
        return bytes
    }

    /// A deterministic source for tests: the same seed gives the same bytes. Never for real keys.
    public static func seeded(_ seed: UInt64) -> RandomBytes {
        let generator = Mutex(SeededRandomNumberGenerator(seed: seed))
        return RandomBytes { count in
            generator.withLock { generator in (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
        }
    }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        let bytes = draw(count)
        precondition(bytes.count == count, "RandomBytes: the source returned \(bytes.count) bytes, not \(count)")
        return bytes
    }
}
