import Crypto
import _CryptoExtras

/// The cost of turning a passphrase into a key with scrypt: N = 2^`logN` rounds, block size
/// r and parallelism p. Stored in the envelope beside the salt, so a later release may raise
/// them without locking out an account.
///
/// Every value read from an envelope is bounded (`init(logN:blockSize:parallelism:)`), so a
/// hostile server cannot make a device reserve gigabytes or spin for minutes.
public struct ScryptParameters: Hashable, Sendable, CustomStringConvertible {
    /// log2 of N, the rounds (and the memory: 128·N·r bytes).
    public let logN: UInt8
    /// r, the block size.
    public let blockSize: UInt8
    /// p, how many times the memory-hard mix runs (one after another in BoringSSL).
    public let parallelism: UInt8

    /// The most memory one derivation may take: 1 GiB.
    public static let maximumMemory = 1 << 30
    /// The most work one derivation may take, as N·r·p: 16 times `standard`'s.
    public static let maximumWork = 1 << 25

    /// The parameters, or nil outside the bounds: logN 1 to 24, r 1 to 32, p 1 to 16,
    /// memory at most `maximumMemory`, N·r·p at most `maximumWork`.
    public init?(logN: UInt8, blockSize: UInt8, parallelism: UInt8) {
        guard (1...24).contains(logN), (1...32).contains(blockSize), (1...16).contains(parallelism) else { return nil }
        let rounds = 1 << Int(logN)
        guard 128 * rounds * Int(blockSize) <= Self.maximumMemory,
              rounds * Int(blockSize) * Int(parallelism) <= Self.maximumWork
        else { return nil }
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// What a new envelope uses: N = 2^17, r = 8, p = 2, so 128 MiB of memory. One
    /// derivation took 0.43 s (p50 of 15; p95 0.46 s) in a release build on the project's
    /// 2-core machine while other builds ran, and a whole unlock about as long
    /// (BENCHMARKS.md, "Encryption's cost"): about half a second, well inside the 1 s an unlock
    /// may take. N = 2^16 with p = 5 costs as long with half the memory; more memory is what
    /// costs an attacker with many cores.
    public static let standard = ScryptParameters(logN: 17, blockSize: 8, parallelism: 2)!

    /// The memory one derivation takes, in bytes (128·N·r).
    public var memoryBytes: Int { 128 * (1 << Int(logN)) * Int(blockSize) }

    public var description: String { "scrypt N=2^\(logN) r=\(blockSize) p=\(parallelism) (\(memoryBytes >> 20) MiB)" }

    /// The 256-bit key `passphrase` (its UTF-8 bytes) and `salt` give under these parameters.
    func deriveKey(passphrase: [UInt8], salt: [UInt8]) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: passphrase, salt: salt, outputByteCount: 32,
            rounds: 1 << Int(logN), blockSize: Int(blockSize), parallelism: Int(parallelism))
    }
}
