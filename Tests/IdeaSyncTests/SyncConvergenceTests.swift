import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
@testable import IdeaSync
import ProcessTestSupport
import RemoteTestSupport
import Testing

/// The whole sync as a model-based property. Seeded random sequences of what people do
/// (adds, field edits, done/undone, deletes, undo and redo, form saves with a remote change
/// in between, an overwrite of the remote, a device joining with its samples) and of what
/// the network does (offline and back, scripted and random errors, items that fail), on
/// devices whose clocks run up to 10 s apart; then every fault heals and every device syncs
/// until quiet. A model keeps every write of every field and every delete, and after each
/// sequence these hold:
/// - every device holds the same ideas, field for field and stamp for stamp, and the
///   remote the same values;
/// - an idea exists exactly when some write of it is later than its latest delete, and
///   each field written after that delete holds its latest write: so no idea a device
///   deleted after seeing its last edit comes back, and no later edit is lost;
/// - every value a person wrote is a current value or in a device's history;
/// - no action is ordered before a version its device had seen.
@Suite struct SyncConvergenceTests {
    /// CI runs all of these; each is a short run of a few dozen steps. `manySequencesHold`
    /// runs more (BENCHMARKS.md, "Long property runs").
    static let seeds: [UInt64] = Array(1...170)

    /// Fewer runs over HTTP, where every request is a real one.
    static let servedSeeds: [UInt64] = Array(1...15)

    @Test(arguments: seeds)
    func everyDeviceAndTheRemoteConverge(seed: UInt64) async throws {
        var world = try ConvergenceWorld(seed: seed)
        try world.run(steps: 50)
        try world.settle()
        await world.check()
    }

    /// The benchmark of the property (BENCHMARKS.md, "Long property runs"): `IDEABOX_PROPERTY_RUNS`
    /// sequences from seed 1, on every core, printing how many held and how long they took.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["IDEABOX_PROPERTY_RUNS"] != nil))
    func manySequencesHold() async throws {
        let runs = UInt64(ProcessInfo.processInfo.environment["IDEABOX_PROPERTY_RUNS"].flatMap(Int.init) ?? 0)
        let started = ContinuousClock.now
        let failed = await withTaskGroup(of: UInt64?.self) { group in
            var next: UInt64 = 1
            var failed: [UInt64] = []
            func startNext() {
                let seed = next
                next += 1
                group.addTask {
                    guard var world = try? ConvergenceWorld(seed: seed) else { return seed }
                    do {
                        try world.run(steps: 50)
                        try world.settle()
                    } catch {
                        return seed
                    }
                    return await world.violations().isEmpty ? nil : seed
                }
            }
            for _ in 0..<min(runs, UInt64(ProcessInfo.processInfo.activeProcessorCount)) { startNext() }
            while let result = await group.next() {
                if let result { failed.append(result) }
                if next <= runs { startNext() }
            }
            return failed.sorted()
        }
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        print("sync property: \(runs - UInt64(failed.count)) of \(runs) sequences held in \(Int(seconds)) s; failed seeds: \(failed.prefix(20))")
        #expect(failed.isEmpty, "failed seeds: \(failed.prefix(20))")
    }

    @Test("The same property through ideabox serve, with SQLite and (where configured) PostgreSQL behind it",
          arguments: RemoteKind.tested.filter { $0 != .embedded }, servedSeeds)
    func everyDeviceAndTheServedRemoteConverge(remote: RemoteKind, seed: UInt64) async throws {
        let fixture = HandedOver(value: try await ConvergenceWorld.fixture(seed: seed, remote: remote))
        // The devices' client waits for each answer: the run is on a thread of its own, off the
        // test pool's two; the check, which records issues, back in the test.
        let world = try await OwnThread.run {
            var world = try ConvergenceWorld(seed: seed, fixture: fixture.value)
            try world.run(steps: 50)
            try world.settle()
            return HandedOver(value: world)
        }.value
        await world.check()
    }

    /// A fixture or a world handed to a thread of its own, or back to the test, once the
    /// other side is done with it.
    private struct HandedOver<Value>: @unchecked Sendable {
        let value: Value
    }
}

/// One random run: devices, the model of what they wrote, the faults, and the log to print
/// on failure.
private struct ConvergenceWorld {
    /// One write of one field: where it stands in the sync order and the value written.
    struct FieldWrite {
        var order: SyncOrder
        var value: String
        /// The device that wrote it and how many saves its client had seen acknowledged then,
        /// if a device of this sequence wrote it: where to look for the save that carried it.
        var origin: Origin?
    }

    /// Which device made a write or delete, and after how many of its acknowledged saves.
    struct Origin: Hashable {
        var device: Int
        var savesBefore: Int
    }

    /// An edit a device can undo: the idea before and after, and the fields it changed.
    struct Edit {
        var before: Idea
        var after: Idea
        var fields: [IdeaField]
    }

    let seed: UInt64
    let fixture: SyncFixture
    var devices: [Device] = []
    var watched: [WatchedDatabase] = []
    var random: SeededRandomNumberGenerator
    /// Every write of every field of every idea, samples included.
    var writes: [UUID: [IdeaField: [FieldWrite]]] = [:]
    /// Every delete of every idea.
    var deletes: [UUID: [SyncOrder]] = [:]
    /// The device and moment of each delete a device of this sequence made.
    var deleteOrigins: [SyncOrder: Origin] = [:]
    /// Every value a person wrote: the idea, the field, the value.
    var personal: [(id: UUID, field: IdeaField, value: String, device: Int)] = []
    var deleted: [Int: [Idea]] = [:]
    var undoable: [Int: [Edit]] = [:]
    var redoable: [Int: [Edit]] = [:]
    var log: [String] = []
    var titleCounter = 0
    var joined = false
    var overwrote = false
    /// What broke the invariants while the sequence ran (an action ordered before what its
    /// device had seen).
    var runViolations: [String] = []

    /// The sequence of `seed` over the embedded remote.
    init(seed: UInt64) throws {
        try self.init(seed: seed, fixture: SyncFixture(random: Self.fixtureRandom(seed), maximumRecordsPerRequest: 5))
    }

    /// The sequence of `seed` over `fixture`, made by `fixture(seed:remote:)`.
    init(seed: UInt64, fixture: SyncFixture) throws {
        self.seed = seed
        random = SeededRandomNumberGenerator(seed: seed)
        self.fixture = fixture
        let count = Int.random(in: 3...4, using: &random)
        for _ in 0..<count {
            try addDevice(seedsSamples: Bool.random(using: &random))
        }
    }

    /// The remote of the sequence of `seed`, over `remote`.
    static func fixture(seed: UInt64, remote: RemoteKind) async throws -> SyncFixture {
        try await SyncFixture(remote: remote, random: fixtureRandom(seed), maximumRecordsPerRequest: 5)
    }

    /// The generator of the remote's faults in the sequence of `seed`.
    private static func fixtureRandom(_ seed: UInt64) -> SeededRandomNumberGenerator {
        SeededRandomNumberGenerator(seed: seed &+ 1_000_003)
    }

    /// A new device, its clock up to 10 s off, with the samples if `seedsSamples`.
    mutating func addDevice(seedsSamples: Bool) throws {
        let index = devices.count
        let offset: Int64 = Bool.random(using: &random) ? 0 : Int64.random(in: -10_000...10_000, using: &random)
        let prefix = String(format: "%08x", index + 1)
        var watchedClient: WatchedDatabase?
        let device = try fixture.device(
            "d\(index)", seedsSamples: seedsSamples, clockOffset: offset,
            deviceIds: .fixed("dddd\(prefix.suffix(4))-0000-4000-8000-000000000000"),
            ideaIds: .numbered(prefix: prefix),
            client: { base in
                let client = WatchedDatabase(base)
                watchedClient = client
                return client
            })
        devices.append(device)
        watched.append(watchedClient!)
        log.append("d\(index): clock offset \(offset) ms, device id \(device.repository.deviceId.prefix(8))\(seedsSamples ? ", samples" : "")")
        if seedsSamples {
            for idea in try device.ideas() {
                noteWrites(idea, stamps: FieldStamps(legacy: idea), fields: IdeaField.allCases)
            }
        }
        device.engine.start()
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
            case 40..<42: try undoDelete(index)
            case 42..<43: try revertEdit(index, undoing: true)
            case 43..<48:
                let offline = Bool.random(using: &random)
                try fixture.cloud.network.setOffline(offline, device: device.name)
                log.append("d\(index): network \(offline ? "off" : "on")")
                device.engine.networkChanged()
            case 48..<52:
                let errors = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomScriptedError() }
                try fixture.cloud.network.scriptErrors(errors, device: device.name)
                log.append("d\(index): scripted \(errors.map { "\($0.error)\($0.failsAfterApplying ? " after applying" : "")" })")
            case 52..<54:
                let probability = Double.random(in: 0.1...0.5, using: &random)
                try fixture.cloud.network.addErrorRate(ErrorRate(probability: probability, error: .internalError), device: device.name)
                log.append("d\(index): error rate \(probability)")
            case 54..<56:
                try fixture.cloud.network.clearErrorRates(device: device.name)
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
            case 80..<82:
                device.engine.syncNow()
                log.append("d\(index): sync now")
            case 82..<83: try revertEdit(index, undoing: false)
            case 83..<85: try formSave(index)
            case 85..<86 where !overwrote:
                try overwrite(index)
            case 86..<87 where !joined:
                joined = true
                try addDevice(seedsSamples: true)
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
            try fixture.cloud.network.setOffline(false, device: device.name)
            try fixture.cloud.network.clearErrorRates(device: device.name)
            try fixture.cloud.network.clearScriptedErrors(device: device.name)
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

    /// Records every broken invariant as an issue, with the sequence's log.
    func check() async {
        let report = "seed \(seed):\n" + log.joined(separator: "\n")
        for violation in await violations() {
            Issue.record(Comment(rawValue: violation + "\n" + report))
        }
    }

    /// The invariants this sequence broke, each in a line.
    func violations() async -> [String] {
        var found = runViolations
        do {
            try await checkModel { found.append($0) }
        } catch {
            found.append("\(error)")
        }
        return found
    }

    private func checkModel(_ violation: (String) -> Void) async throws {
        // Every device the same, field for field and stamp for stamp; the remote the same values.
        let states = try devices.map(Self.state)
        for (index, state) in states.enumerated().dropFirst() where state != states[0] {
            let here = Set(state.map(\.summary)), there = Set(states[0].map(\.summary))
            violation("d\(index) differs from d0: only d\(index) \(here.subtracting(there).sorted()), only d0 \(there.subtracting(here).sorted())")
        }
        for device in devices {
            if try device.repository.pendingChangeCount() != 0 { violation("\(device.name) still has changes to send") }
        }
        let remote = try await fixture.remoteIdeas()
        let onFirst = try devices[0].snapshots()
        if remote != onFirst { violation("the remote differs from d0: \(remote.map(\.summary)), d0 \(onFirst.map(\.summary))") }

        // The model: an idea exists exactly when a write is later than its latest delete, and
        // each field written after that delete holds its latest write. Later as the remote
        // orders it: a write from a clock ahead of the remote's stands where it arrived.
        let held = Dictionary(uniqueKeysWithValues: try devices[0].ideas().map { ($0.id, $0) })
        let arrivals = Arrivals(watched.map { $0.saved })
        for (id, written) in writes {
            var fields: [IdeaField: [FieldWrite]] = [:]
            for (field, fieldWrites) in written {
                fields[field] = fieldWrites.map { write in
                    FieldWrite(order: arrivals.order(of: write.order, field: (field, write.value), origin: write.origin, on: id), value: write.value)
                }
            }
            let lastDelete = deletes[id]?.map { arrivals.order(of: $0, field: nil, origin: deleteOrigins[$0], on: id) }.max()
            // A sample only seeded, never written by a person, may be left out: a device
            // joining an account that has ideas takes the account's samples, or none.
            let lastWrite = fields.values.flatMap { $0 }.map(\.order).filter { !$0.isSample }.max()
            let shouldExist: Bool? = switch (lastWrite, lastDelete) {
            case let (write?, delete?): write > delete
            case (_?, nil): true
            case (nil, _?): false
            case (nil, nil): nil
            }
            guard let idea = held[id] else {
                if shouldExist == true {
                    violation("\(id.lowercasedString.prefix(8)) is gone, but a write (\(String(describing: lastWrite))) is later than its delete (\(String(describing: lastDelete)))")
                }
                continue
            }
            if shouldExist == false {
                violation("\(id.lowercasedString.prefix(8)) came back: its latest delete (\(String(describing: lastDelete))) is later than every write (\(String(describing: lastWrite)))")
            }
            for (field, fieldWrites) in fields {
                let newest = fieldWrites.max { $0.order < $1.order }!
                if let lastDelete, newest.order < lastDelete { continue }
                if idea.value(of: field) != newest.value {
                    violation("\(id.lowercasedString.prefix(8)) \(field): \"\(idea.value(of: field))\", the latest write was \"\(newest.value)\" at \(newest.order)")
                }
            }
        }

        // Every value a person wrote is current, or in a device's history.
        var kept: [UUID: [IdeaField: Set<String>]] = [:]
        for device in devices {
            for id in writes.keys {
                for version in try device.repository.history(of: id) where !version.isDeleted {
                    kept[id, default: [:]][.title, default: []].insert(version.title)
                    kept[id, default: [:]][.description, default: []].insert(version.description)
                    kept[id, default: [:]][.isCompleted, default: []].insert(version.isCompleted ? "true" : "false")
                }
            }
        }
        for write in personal where !(kept[write.id]?[write.field]?.contains(write.value) ?? false) {
            violation("d\(write.device)'s \(write.field) \"\(write.value)\" of \(write.id.lowercasedString.prefix(8)) is nowhere: not current, not in any history")
        }
    }

    /// A device's ideas with their stamps, as every device must hold them.
    private static func state(of device: Device) throws -> [Held] {
        var held: [Held] = []
        try device.repository.forEachSyncState { change in
            if case let .saved(idea, stamps) = change { held.append(Held(idea, stamps)) }
        }
        return held.sorted { $0.id.lowercasedString < $1.id.lowercasedString }
    }

    /// What every device must agree on about an idea.
    struct Held: Equatable {
        var id: UUID
        var title: String
        var description: String
        var isCompleted: Bool
        var createdAt: Timestamp
        var updatedAt: Timestamp
        var deviceId: String
        var stamps: FieldStamps

        init(_ idea: Idea, _ stamps: FieldStamps) {
            id = idea.id
            title = idea.title
            description = idea.description
            isCompleted = idea.isCompleted
            createdAt = idea.createdAt
            updatedAt = idea.updatedAt
            deviceId = idea.deviceId
            self.stamps = stamps
        }

        var summary: String {
            "\(id.lowercasedString.prefix(8)) \"\(title)\" \"\(description)\" done=\(isCompleted) created \(createdAt.milliseconds) at \(updatedAt.milliseconds) by \(deviceId.prefix(8)) \(stamps)"
        }
    }

    // MARK: Operations

    private mutating func noteWrites(_ idea: Idea, stamps: FieldStamps, fields: [IdeaField], by device: Int? = nil) {
        let origin = device.map { Origin(device: $0, savesBefore: watched[$0].saved.count) }
        for field in fields {
            writes[idea.id, default: [:]][field, default: []].append(
                FieldWrite(order: stamps[field], value: idea.value(of: field), origin: origin))
            if let device { personal.append((idea.id, field, idea.value(of: field), device)) }
        }
    }

    /// The latest place in the sync order of anything device `index` holds.
    private func latestSeen(on index: Int) throws -> SyncOrder? {
        var latest: SyncOrder?
        try devices[index].repository.forEachSyncState { change in latest = max(latest ?? change.order, change.order) }
        return latest
    }

    /// Checks that an action of device `index` at `order` comes after everything it had seen.
    private mutating func expectAfter(_ seen: SyncOrder?, _ order: SyncOrder, on index: Int, _ what: String) {
        guard let seen, order <= seen else { return }
        runViolations.append("d\(index)'s \(what) at \(order) is not after \(seen), which it had seen")
    }

    private mutating func someIdea(on index: Int) throws -> Idea? {
        let ideas = try devices[index].ideas().sorted { $0.id.lowercasedString < $1.id.lowercasedString }
        return ideas.randomElement(using: &random)
    }

    private mutating func add(_ index: Int) throws {
        titleCounter += 1
        let seen = try latestSeen(on: index)
        let idea = try devices[index].repository.addIdea(title: "idea \(titleCounter)")
        expectAfter(seen, SyncOrder(idea), on: index, "add")
        noteWrites(idea, stamps: FieldStamps(all: SyncOrder(idea)), fields: IdeaField.allCases, by: index)
        devices[index].engine.localChangeHappened()
        log.append("d\(index): add \(IdeaSnapshot(idea).summary)")
    }

    private mutating func edit(_ index: Int) throws {
        guard let idea = try someIdea(on: index) else { return }
        titleCounter += 1
        let changes = Bool.random(using: &random)
            ? IdeaChanges(title: "title \(titleCounter)") : IdeaChanges(description: "text \(titleCounter)")
        let seen = try latestSeen(on: index)
        let edited = try devices[index].repository.editIdea(id: idea.id, changes)
        expectAfter(seen, SyncOrder(edited), on: index, "edit")
        let fields = edited.fieldsDiffering(from: idea)
        noteWrites(edited, stamps: FieldStamps(all: SyncOrder(edited)), fields: fields, by: index)
        undoable[index, default: []].append(Edit(before: idea, after: edited, fields: fields))
        devices[index].engine.localChangeHappened()
        log.append("d\(index): edit \(fields) \(IdeaSnapshot(edited).summary)")
    }

    private mutating func toggle(_ index: Int) throws {
        guard let idea = try someIdea(on: index) else { return }
        let seen = try latestSeen(on: index)
        let toggled = try devices[index].repository.toggleCompleted(id: idea.id)
        expectAfter(seen, SyncOrder(toggled), on: index, "toggle")
        noteWrites(toggled, stamps: FieldStamps(all: SyncOrder(toggled)), fields: [.isCompleted], by: index)
        undoable[index, default: []].append(Edit(before: idea, after: toggled, fields: [.isCompleted]))
        devices[index].engine.localChangeHappened()
        log.append("d\(index): toggle \(IdeaSnapshot(toggled).summary)")
    }

    private mutating func delete(_ index: Int) throws {
        guard let idea = try someIdea(on: index) else { return }
        let repository = devices[index].repository
        let seen = try latestSeen(on: index)
        _ = try repository.deleteIdea(id: idea.id)
        deleted[index, default: []].append(idea)
        var order: SyncOrder?
        try repository.forEachSyncState { state in
            if case let .deleted(id, deletedAt) = state, id == idea.id { order = deletedAt }
        }
        guard let order else {
            runViolations.append("no tombstone after deleting \(idea.id)")
            return
        }
        expectAfter(seen, order, on: index, "delete")
        deletes[idea.id, default: []].append(order)
        deleteOrigins[order] = Origin(device: index, savesBefore: watched[index].saved.count)
        devices[index].engine.localChangeHappened()
        log.append("d\(index): delete \(idea.id.lowercasedString.prefix(8)) at \(order.timestamp.milliseconds)")
    }

    private mutating func undoDelete(_ index: Int) throws {
        guard let idea = deleted[index]?.popLast() else { return }
        let repository = devices[index].repository
        let wasGone = try repository.idea(id: idea.id) == nil
        let restored = try repository.restoreIdea(idea)
        if wasGone {
            noteWrites(restored, stamps: FieldStamps(all: SyncOrder(restored)), fields: IdeaField.allCases, by: index)
        }
        devices[index].engine.localChangeHappened()
        log.append("d\(index): undo delete → \(IdeaSnapshot(restored).summary)")
    }

    /// Undo (or redo) of an edit: a new edit of its fields, or nothing where another device
    /// changed them since. An undone edit can be redone.
    private mutating func revertEdit(_ index: Int, undoing: Bool) throws {
        guard let edit = undoing ? undoable[index]?.popLast() : redoable[index]?.popLast() else { return }
        let outcome = try devices[index].repository.revert(
            id: edit.after.id, fields: edit.fields, from: undoing ? edit.after : edit.before,
            to: undoing ? edit.before : edit.after, reason: undoing ? .undone : .redone)
        if case .reverted(let idea) = outcome {
            noteWrites(idea, stamps: FieldStamps(all: SyncOrder(idea)), fields: edit.fields, by: index)
            if undoing { redoable[index, default: []].append(edit) }
            devices[index].engine.localChangeHappened()
        }
        log.append("d\(index): \(undoing ? "undo" : "redo") \(edit.fields) of \(edit.after.id.lowercasedString.prefix(8)) → \(outcome)")
    }

    /// A form opened on an idea, a sync while it is open, then a save of the one field the
    /// person changed (or, if the idea was deleted meanwhile, a new idea with the text).
    private mutating func formSave(_ index: Int) throws {
        guard let opened = try someIdea(on: index) else { return }
        let device = devices[index]
        _ = try? device.session.run()
        titleCounter += 1
        let title = "form \(titleCounter)"
        guard try device.repository.idea(id: opened.id) != nil else {
            let idea = try device.repository.addIdea(title: title, description: opened.description, isCompleted: opened.isCompleted)
            noteWrites(idea, stamps: FieldStamps(all: SyncOrder(idea)), fields: IdeaField.allCases, by: index)
            log.append("d\(index): form on a deleted idea saved as new \(IdeaSnapshot(idea).summary)")
            return
        }
        let saved = try device.repository.editIdea(id: opened.id, IdeaChanges(title: title))
        noteWrites(saved, stamps: FieldStamps(all: SyncOrder(saved)), fields: [.title], by: index)
        device.engine.localChangeHappened()
        log.append("d\(index): form save \(IdeaSnapshot(saved).summary)")
    }

    /// `sync --overwrite-remote`: every idea and delete here stamped anew (after everything
    /// the listing showed), and whatever only the remote has deleted.
    private mutating func overwrite(_ index: Int) throws {
        let device = devices[index]
        let outcome: String
        do {
            let report = try device.session.overwriteRemote()
            outcome = "sent \(report.sent)"
        } catch {
            outcome = "failed: \(error)"
        }
        overwrote = true
        var remoteIds = Set<UUID>()
        try device.repository.forEachSyncState { change in
            switch change {
            case let .saved(idea, stamps): noteWrites(idea, stamps: stamps, fields: IdeaField.allCases)
            case let .deleted(id, order):
                remoteIds.insert(id)
                if deletes[id]?.contains(order) != true { deletes[id, default: []].append(order) }
            }
        }
        log.append("d\(index): overwrite the remote → \(outcome)")
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

/// Where each write stands once the remote received it: the first save of it the remote
/// acknowledged, read as every device reads it (`ArrivalRule`, by `IdeaRecord`). A write that
/// never reached the remote as such (its device brought a time from the future back before
/// sending it, or a later change replaced it first) stands where the next save of its device
/// put it: at that save's stamp if the save carried it, else just before.
private struct Arrivals {
    /// One save the remote acknowledged: the version as sent, and as every device reads it.
    private struct Save {
        var sent: RemoteChange
        var read: RemoteChange
    }

    /// Each idea's saves, in the order the remote received them.
    private var saves: [UUID: [Save]] = [:]
    /// Each device's acknowledged saves, in its order.
    private let byDevice: [[RemoteRecord]]

    init(_ byDevice: [[RemoteRecord]]) {
        self.byDevice = byDevice
        let records = byDevice.flatMap { $0 }
        for record in records.sorted(by: { ($0.modificationDate?.milliseconds ?? 0) < ($1.modificationDate?.milliseconds ?? 0) }) {
            guard let save = Self.save(record) else { continue }
            saves[save.sent.ideaId, default: []].append(save)
        }
    }

    private static func save(_ record: RemoteRecord) -> Save? {
        var unreceived = record
        unreceived.modificationDate = nil
        guard let sent = IdeaRecord.change(from: unreceived), let read = IdeaRecord.change(from: record) else { return nil }
        return Save(sent: sent, read: read)
    }

    /// Where a write of `field` (with its value), or a delete (`field` nil), made at `order`
    /// of idea `id` stands in the remote's order.
    func order(of order: SyncOrder, field: (IdeaField, String)?, origin: ConvergenceWorld.Origin?, on id: UUID) -> SyncOrder {
        for save in saves[id] ?? [] {
            switch (save.sent, save.read, field) {
            case let (.deleted(_, raw), .deleted(_, arrived), nil) where raw == order:
                return arrived
            case let (.saved(_, raw), .saved(_, arrived), (field, _)?) where raw[field] == order:
                return arrived[field]
            default:
                continue
            }
        }
        guard !order.isSample, let origin, byDevice.indices.contains(origin.device) else { return order }
        let next = byDevice[origin.device].dropFirst(origin.savesBefore).lazy.compactMap(Self.save).first { $0.sent.ideaId == id }
        guard let next else { return order }
        switch (next.read, field) {
        case let (.saved(idea, stamps), (field, value)?) where idea.value(of: field) == value && stamps[field].deviceId == order.deviceId:
            return stamps[field]
        case let (.deleted(_, arrived), nil) where arrived.deviceId == order.deviceId:
            return arrived
        default:
            return SyncOrder(timestamp: min(order.timestamp, next.read.order.timestamp.adding(milliseconds: -1)), deviceId: order.deviceId)
        }
    }
}
