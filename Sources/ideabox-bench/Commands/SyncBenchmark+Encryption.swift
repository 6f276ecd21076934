import AccountEncryption
import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync

/// `ideabox-bench sync --compare-encryption`: the initial sync with and without the
/// account's encryption, in pairs run back to back (which goes first alternates from round
/// to round), so that the machine's drifting speed falls on both alike. The encrypted devices
/// reach the remote as the app does: through `EncryptedDatabase`, which reads the envelope at
/// each sync's start and seals and opens every record; the plain ones straight.
extension SyncBenchmark {
    func runPaired() async throws {
        let corpus = Self.pairedCorpus(count: ideas)
        let served = try server.store.map { try BenchServer(store: $0) }
        defer { served?.stop() }
        let creation = try KeyEnvelope.make(passphrase: "bench passphrase", scrypt: ScryptParameters(logN: 10, blockSize: 8, parallelism: 1)!)
        var rates: [Bool: (uploads: [Int], downloads: [Int])] = [false: ([], []), true: ([], [])]
        for round in 0..<rounds {
            for encrypted in round % 2 == 0 ? [false, true] : [true, false] {
                let (upload, download) = try await Self.initialSync(
                    corpus, name: "round-\(round)-\(encrypted ? "sealed" : "plain")", server: served, keys: encrypted ? creation : nil)
                rates[encrypted]!.uploads.append(upload)
                rates[encrypted]!.downloads.append(download)
                print("round \(round + 1) \(encrypted ? "encrypted" : "plain    "): A → remote \(upload) records/s, remote → B \(download) records/s")
            }
        }
        print("remote: \(server.store.map { "ideabox serve over HTTP, store \($0)" } ?? "embedded SQLite file")")
        print("initial sync of \(ideas) ideas, \(rounds) paired rounds: records/s p50 / p95 (p95: the slow end, the 5th percentile of the rates)")
        for (way, plain, sealed) in [
            ("A → remote", rates[false]!.uploads, rates[true]!.uploads), ("remote → B", rates[false]!.downloads, rates[true]!.downloads),
        ] {
            let share = Double(Self.median(sealed)) / Double(max(1, Self.median(plain)))
            print("  \(way)  plain \(Self.median(plain)) / \(Self.slowEnd(plain))  encrypted \(Self.median(sealed)) / \(Self.slowEnd(sealed))  encrypted/plain p50 \(String(format: "%.2f", share))")
        }
    }

    /// One initial sync of `corpus` from a new device A to a new device B over a new account:
    /// sealed with `keys`' keyring if given. Returns the records/s each way.
    private static func initialSync(
        _ corpus: [Idea], name: String, server: BenchServer?, keys: KeyEnvelope.Creation?
    ) async throws -> (upload: Int, download: Int) {
        let process = ProcessInfo.processInfo.processIdentifier
        let root = URL(fileURLWithPath: NSTemporaryDirectory() + "ideabox-bench-paired-\(process)-\(name)")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        var remotes: [(base: any CloudDatabase, whole: any CloudDatabase)] = []
        if let server {
            let account = try server.newAccount("bench-\(process)-\(name)")
            for _ in 0..<2 {
                var whole = try server.client(account)
                whole.replacesWholeRecords = true
                remotes.append((try server.client(account), whole))
            }
        } else {
            let cloud = try SimulatedCloud.open(directory: root, clock: .system)
            remotes = ["a", "b"].map { (cloud.database(forDevice: $0), cloud.database(forDevice: $0)) }
        }
        if let keys {
            let store = EnvelopeStore(database: remotes[0].base)
            guard case .published = try await store.publish(keys.envelope) else {
                throw ValidationError("the account already had an envelope")
            }
        }
        let devices = try zip(["a", "b"], remotes).map { device, remote in
            let location = try DataLocation(root: root, profile: device)
            var database: any CloudDatabase = remote.base
            if let keys {
                let keyFile = AccountKeyFile(directory: location.profileDirectory)
                try keyFile.save(keys.keyring)
                database = EncryptedDatabase(base: remote.base, sealedBase: remote.whole, keyFile: keyFile, containerID: BenchServer.container)
            }
            let store = try IdeaDatabase.open(
                directory: location.profileDirectory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
            let repository = store.repository(clock: .system, ids: .random)
            return (repository: repository, session: SyncSession(repository: repository, database: database, clock: .system))
        }
        _ = try devices[0].repository.importIdeas(corpus)
        let clock = ContinuousClock()
        var start = clock.now
        let sent = try await devices[0].session.run().sent
        let upload = pairedRate(sent, clock.now - start)
        start = clock.now
        let received = try await devices[1].session.run().received
        let download = pairedRate(received, clock.now - start)
        guard sent == corpus.count, received == corpus.count else {
            throw ValidationError("sent \(sent) and received \(received) of \(corpus.count) ideas")
        }
        return (upload, download)
    }

    private static func pairedCorpus(count: Int) -> [Idea] {
        var texts = SampleCorpus(seed: 5)
        let base = Timestamp(milliseconds: 1_700_000_000_000)
        return (0..<count).map { index in
            let text = texts.nextText()
            return Idea(
                id: UUID(), title: text.title, description: text.description, createdAt: base.adding(milliseconds: Int64(index) * 1000),
                deviceId: "bench")
        }
    }

    private static func median(_ rates: [Int]) -> Int {
        let sorted = rates.sorted()
        return sorted[(sorted.count - 1) / 2]
    }

    /// The rate 95 % of the runs beat: the slow end (nearest rank), what a p95 time is to rates.
    private static func slowEnd(_ rates: [Int]) -> Int {
        let sorted = rates.sorted()
        let rank = max(0, Int((0.05 * Double(sorted.count)).rounded(.up)) - 1)
        return sorted[rank]
    }

    private static func pairedRate(_ count: Int, _ duration: Duration) -> Int {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds > 0 ? Int(Double(count) / seconds) : 0
    }
}
