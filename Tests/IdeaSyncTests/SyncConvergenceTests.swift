import EmbeddedRemote
import Foundation
import IdeaBoxCore
import IdeaStore
import IdeaSync
import RemoteTestSupport
import Testing

/// Property: whatever devices do, in whatever order they sync, through whatever faults,
/// once the faults clear and every device has synced a few times, every device and the
/// remote hold the same ideas, and for every idea that is the newest write any device made.
@Suite struct SyncConvergenceTests {
    /// CI runs all of these; each is a short run of a few dozen steps.
    static let seeds: [UInt64] = Array(1...170)

    /// Fewer runs over HTTP, where every request is a real one.
    static let servedSeeds: [UInt64] = Array(1...15)

    @Test(arguments: seeds)
    func everyDeviceAndTheRemoteConverge(seed: UInt64) throws {
        var world = try ConvergenceWorld(seed: seed)
        try world.run(steps: 50)
        try world.settle()
        world.check()
    }

    @Test("The same property through ideabox serve, with SQLite and (where configured) PostgreSQL behind it",
          arguments: RemoteKind.tested.filter { $0 != .embedded }, servedSeeds)
    func everyDeviceAndTheServedRemoteConverge(remote: RemoteKind, seed: UInt64) throws {
        var world = try ConvergenceWorld(seed: seed, remote: remote)
        try world.run(steps: 50)
        try world.settle()
        world.check()
    }
}

/// One random run: devices, their ideas, the faults, and the log to print on failure.
private struct ConvergenceWorld {
    /// The newest write to an idea any device made: its state, or its delete.
    enum Write {
        case saved(IdeaSnapshot)
        case deleted(SyncOrder)

        var order: SyncOrder {
            switch self {
            case .saved(let idea): SyncOrder(timestamp: idea.updatedAt, deviceId: idea.deviceId)
            case .deleted(let order): order
            }
        }
    }

    let seed: UInt64
    let fixture: SyncFixture
    var devices: [Device] = []
    var watched: [WatchedDatabase] = []
    var random: SeededRandomNumberGenerator
    var newest: [UUID: Write] = [:]
    var deleted: [Int: [Idea]] = [:]
    var log: [String] = []
    var titleCounter = 0

    init(seed: UInt64, remote: RemoteKind = .embedded) throws {
        self.seed = seed
        random = SeededRandomNumberGenerator(seed: seed)
        fixture = try SyncFixture(
            remote: remote, random: SeededRandomNumberGenerator(seed: seed &+ 1_000_003), maximumRecordsPerRequest: 5)
        let count = Int.random(in: 3...4, using: &random)
        for index in 0..<count {
            // Some devices run behind or ahead by up to five seconds.
            let offset: Int64 = Bool.random(using: &random) ? 0 : Int64.random(in: -5000...5000, using: &random)
            let prefix = String(format: "%08x", index + 1)
            var watchedClient: WatchedDatabase?
            let device = try fixture.device(
                "d\(index)", clockOffset: offset,
                deviceIds: .fixed("dddd\(prefix.suffix(4))-0000-4000-8000-000000000000"),
                ideaIds: .numbered(prefix: prefix),
                client: { base in
                    let client = WatchedDatabase(base)
                    watchedClient = client
                    return client
                })
            devices.append(device)
            watched.append(watchedClient!)
            log.append("d\(index): clock offset \(offset) ms, device id \(device.repository.deviceId.prefix(8))")
            device.engine.start()
        }
    }

    mutating func run(steps: Int) throws {
        for _ in 0..<steps {
            let index = Int.random(in: 0..<devices.count, using: &random)
            let device = devices[index]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<12: try add(index)
            case 12..<28: try edit(index)
            case 28..<34: try toggle(index)
            case 34..<40: try delete(index)
            case 40..<43: try undo(index)
            case 43..<48:
                let offline = Bool.random(using: &random)
                try fixture.cloud.setOffline(offline, device: device.name)
                log.append("d\(index): network \(offline ? "off" : "on")")
                device.engine.networkChanged()
            case 48..<52:
                let errors = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomScriptedError() }
                try fixture.cloud.scriptErrors(errors, device: device.name)
                log.append("d\(index): scripted \(errors.map { "\($0.error)\($0.failsAfterApplying ? " after applying" : "")" })")
            case 52..<54:
                let probability = Double.random(in: 0.1...0.5, using: &random)
                try fixture.cloud.addErrorRate(ErrorRate(probability: probability, error: .internalError), device: device.name)
                log.append("d\(index): error rate \(probability)")
            case 54..<56:
                try fixture.cloud.clearErrorRates(device: device.name)
                log.append("d\(index): error rates cleared")
            case 56..<58:
                let parity = Int.random(in: 0...2, using: &random)
                watched[index].failItems { $0.recordName.utf8.last.map { Int($0) % 3 == parity } == true ? .zoneBusy(retryAfter: 1) : nil }
                log.append("d\(index): items failing (\(parity))")
            case 58..<60:
                watched[index].failItems(nil)
                log.append("d\(index): items pass")
            case 60..<80:
                let outcome: String
                do {
                    let report = try device.session.run()
                    outcome = "sent \(report.sent), received \(report.received), conflicts \(report.conflicts)"
                } catch {
                    outcome = "failed: \(error)"
                }
                log.append("d\(index): session.run → \(outcome)")
            case 80..<84:
                device.engine.syncNow()
                log.append("d\(index): sync now")
            default:
                let milliseconds = Int64.random(in: 1...1500, using: &random)
                fixture.scheduler.advance(by: milliseconds)
                log.append("advance \(milliseconds) ms")
            }
        }
    }

    /// Clears every fault and syncs every device until a whole round moves nothing.
    mutating func settle() throws {
        for (index, device) in devices.enumerated() {
            try fixture.cloud.setOffline(false, device: device.name)
            try fixture.cloud.clearErrorRates(device: device.name)
            try fixture.cloud.clearScriptedErrors(device: device.name)
            watched[index].failItems(nil)
            device.engine.stop()
        }
        log.append("faults cleared")
        for round in 0..<6 {
            var moved = false
            for (index, device) in devices.enumerated() {
                do {
                    let report = try device.session.run()
                    moved = moved || report.sent > 0 || report.received > 0
                    log.append("settle \(round) d\(index): sent \(report.sent), received \(report.received)")
                } catch {
                    moved = true
                    log.append("settle \(round) d\(index): failed: \(error)")
                }
            }
            if !moved && round > 0 { return }
        }
    }

    func check() {
        let report = "seed \(seed):\n" + log.joined(separator: "\n")
        do {
            let remote = try fixture.remoteIdeas()
            var expected: [IdeaSnapshot] = []
            for write in newest.values {
                if case .saved(let idea) = write { expected.append(idea) }
            }
            expected.sort { $0.id.lowercasedString < $1.id.lowercasedString }
            #expect(remote == expected, "the remote lost or changed a write: remote \(remote.map(\.summary)), expected \(expected.map(\.summary))\n\(report)")
            for device in devices {
                let ideas = try device.snapshots()
                #expect(ideas == expected, "\(device.name) differs: \(ideas.map(\.summary)), expected \(expected.map(\.summary))\n\(report)")
                #expect(try device.repository.pendingChangeCount() == 0, "\(device.name) still has changes to send\n\(report)")
            }
        } catch {
            Issue.record("\(error)\n\(report)")
        }
    }

    // MARK: Operations

    private mutating func note(_ write: Write, id: UUID) {
        if let known = newest[id], known.order >= write.order { return }
        newest[id] = write
    }

    private mutating func someIdea(on index: Int) throws -> Idea? {
        let ideas = try devices[index].ideas().sorted { $0.id.lowercasedString < $1.id.lowercasedString }
        return ideas.randomElement(using: &random)
    }

    private mutating func add(_ index: Int) throws {
        titleCounter += 1
        let idea = try devices[index].repository.addIdea(title: "idea \(titleCounter)")
        note(.saved(IdeaSnapshot(idea)), id: idea.id)
        devices[index].engine.localChangeHappened()
        log.append("d\(index): add \(IdeaSnapshot(idea).summary)")
    }

    private mutating func edit(_ index: Int) throws {
        guard let idea = try someIdea(on: index) else { return }
        titleCounter += 1
        let changes = Bool.random(using: &random)
            ? IdeaChanges(title: "title \(titleCounter)") : IdeaChanges(description: "text \(titleCounter)")
        let edited = try devices[index].repository.editIdea(id: idea.id, changes)
        note(.saved(IdeaSnapshot(edited)), id: edited.id)
        devices[index].engine.localChangeHappened()
        log.append("d\(index): edit \(IdeaSnapshot(edited).summary)")
    }

    private mutating func toggle(_ index: Int) throws {
        guard let idea = try someIdea(on: index) else { return }
        let toggled = try devices[index].repository.toggleCompleted(id: idea.id)
        note(.saved(IdeaSnapshot(toggled)), id: toggled.id)
        devices[index].engine.localChangeHappened()
        log.append("d\(index): toggle \(IdeaSnapshot(toggled).summary)")
    }

    private mutating func delete(_ index: Int) throws {
        guard let idea = try someIdea(on: index) else { return }
        let repository = devices[index].repository
        _ = try repository.deleteIdea(id: idea.id)
        deleted[index, default: []].append(idea)
        var order: SyncOrder?
        try repository.forEachSyncState { state in
            if case let .deleted(id, deletedAt) = state, id == idea.id { order = deletedAt }
        }
        guard let order else {
            Issue.record("seed \(seed): no tombstone after deleting \(idea.id)")
            return
        }
        note(.deleted(order), id: idea.id)
        devices[index].engine.localChangeHappened()
        log.append("d\(index): delete \(idea.id.lowercasedString.prefix(8)) at \(order.timestamp.milliseconds)")
    }

    private mutating func undo(_ index: Int) throws {
        guard let idea = deleted[index]?.popLast() else { return }
        let restored = try devices[index].repository.restoreIdea(idea)
        if SyncOrder(restored) > SyncOrder(idea) || restored.version > idea.version {
            note(.saved(IdeaSnapshot(restored)), id: restored.id)
        }
        devices[index].engine.localChangeHappened()
        log.append("d\(index): undo delete → \(IdeaSnapshot(restored).summary)")
    }

    private mutating func randomScriptedError() -> ScriptedError {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: ScriptedError(.networkFailure, operation: .modify, failsAfterApplying: true)
        case 1: ScriptedError(.networkFailure)
        case 2: ScriptedError(.zoneBusy(retryAfter: 2), operation: .modify)
        case 3: ScriptedError(.requestRateLimited(retryAfter: 1))
        case 4: ScriptedError(.serviceUnavailable(retryAfter: nil), operation: .fetchChanges)
        case 5: ScriptedError(.internalError, operation: .query)
        default: ScriptedError(.limitExceeded, operation: .modify)
        }
    }
}

extension IdGenerator {
    /// Always the id `text`: a device id that is the same on every run.
    fileprivate static func fixed(_ text: String) -> IdGenerator {
        let id = UUID(uuidString: text)!
        return IdGenerator { id }
    }

    /// `prefix-0000-4000-8000-000000000001`, `…002`, and so on.
    fileprivate static func numbered(prefix: String) -> IdGenerator {
        let counting = IdGenerator.counting()
        return IdGenerator {
            let number = counting.next().lowercasedString.suffix(12)
            return UUID(uuidString: "\(prefix)-0000-4000-8000-\(number)")!
        }
    }
}
