import AccountEncryption
import ArgumentParser
import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// `ideabox-bench unlock`: how long unlocking an account's key with its passphrase takes (one
/// scrypt derivation and a few boxes), with the parameters a new envelope gets or others, and
/// what sealing and opening one idea record costs. Build it in release mode.
struct UnlockBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Benchmark encryption: unlock with a passphrase (scrypt), seal and open an idea record.")

    @Option(help: "How many timed unlocks.") var runs = 10
    @Option(name: .customLong("log-n"), help: "scrypt's log2(N) (default: the standard parameters').") var logN: UInt8?
    @Option(name: .customLong("r"), help: "scrypt's r.") var blockSize: UInt8?
    @Option(name: .customLong("p"), help: "scrypt's p.") var parallelism: UInt8?

    func validate() throws {
        guard (1...1000).contains(runs) else { throw ValidationError("--runs is 1 to 1000.") }
        guard parameters != nil else { throw ValidationError("those scrypt parameters are out of bounds (see ScryptParameters).") }
    }

    private var parameters: ScryptParameters? {
        let standard = ScryptParameters.standard
        return ScryptParameters(
            logN: logN ?? standard.logN, blockSize: blockSize ?? standard.blockSize, parallelism: parallelism ?? standard.parallelism)
    }

    func run() throws {
        let scrypt = parameters!
        let passphrase = "a bench passphrase 基準"
        let made = try KeyEnvelope.make(passphrase: passphrase, scrypt: scrypt)
        print("\(scrypt)")
        var unlock = Measurement(name: "unlock with the passphrase")
        for _ in 0..<runs {
            _ = try unlock.time { try made.envelope.unlock(with: .passphrase(passphrase)) }
        }
        print(unlock.report)

        let sealer = RecordSealer(keyring: made.keyring, containerID: "bench", hiddenNameZones: [])
        let record = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: UUID().lowercasedString, zoneID: RecordZoneID(zoneName: "Ideas")),
            fields: [
                "title": .string("Bench idea 基準測試"), "description": .string(String(repeating: "a description line ", count: 10)),
                "isCompleted": .int64(0), "createdAt": .timestamp(Timestamp(Date())), "updatedAt": .timestamp(Timestamp(Date())),
                "deviceId": .string("bench-device"), "version": .int64(1), "isDeleted": .int64(0),
                "fieldStamps": .string("1764061200000;1764061200000;1764061200000"),
            ])
        var seal = Measurement(name: "seal one idea record (1,000 per sample)")
        var open = Measurement(name: "open one idea record (1,000 per sample)")
        var sealed = sealer.seal(record)
        for _ in 0..<50 {
            seal.time { for _ in 0..<1000 { sealed = sealer.seal(record) } }
            _ = try open.time { for _ in 0..<1000 { _ = try sealer.open(sealed) } }
        }
        print(seal.report)
        print(open.report)
    }
}
