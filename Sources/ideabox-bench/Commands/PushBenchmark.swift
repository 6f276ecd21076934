import ArgumentParser
import BenchDevices
import CloudHTTPClient
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import Synchronization

/// `ideabox-bench push --server sqlite|postgres://…`: changes pushed to devices that hold a
/// long poll on a real `ideabox serve`, in three parts: one change's trip from A to B's
/// screen model; what an idle device costs the server; and many devices holding polls on
/// one server while others write.
struct PushBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", abstract: "Benchmark push: change latency, idle requests, and many devices holding long polls.")

    @Option(help: "How many changes (add, complete, delete in turn) A makes for B to see.") var changes = 200
    @Option(help: "How many idle devices the idle part watches.") var idleDevices = 5
    @Option(help: "How long the idle part watches them, in seconds.") var idleSeconds = 120
    @Option(help: "How many devices hold long polls in the fan-out part (0 skips it).") var listeners = 1000
    @Option(help: "How many of them share an account (and its token) in the fan-out part.") var perAccount = 20
    @Option(help: "How many devices push at once in the fan-out part, each round in the next accounts.") var writers = 50
    @Option(help: "How many rounds of pushes the fan-out part makes.") var rounds = 10
    @Option(help: "How long the fan-out part leaves every poll held, in seconds, to measure the server's idle CPU.")
    var idleWindow = 60
    @Option(help: "How many `serve` processes over the one store (more than one: PostgreSQL only); devices alternate between them.")
    var processes = 1
    @Option(help: """
        What listens in the fan-out part: wire (the app's long poll and fetches alone, thousands on an event loop) \
        or app (a whole app each: a database, an engine, a thread).
        """)
    var devices: DeviceKind = .wire
    @Option(help: """
        Over what a wire device's long polls go: own (a connection of its own each, asked and read as the app does) or \
        client (the app's HTTP client, whose bookkeeping for ten thousand devices takes the cores the server is measured on).
        """)
    var polls: PollTransport = .own
    @Option(help: """
        How a writer sends its change in the fan-out part: send (as the app sends a save: the push alone, one request, \
        after a first sync before the rounds) or run (a whole sync each time: its zones, a pull, then the push).
        """)
    var writerSync: WriterSync = .send
    @OptionGroup var server: BenchServer.Options

    func validate() throws {
        guard let store = server.store else { throw ValidationError("push measures `ideabox serve`: give --server sqlite or postgres://…") }
        guard writers > 0, perAccount > 0, listeners == 0 || listeners >= perAccount else {
            throw ValidationError("--writers and --per-account must be positive, --listeners 0 or at least --per-account.")
        }
        guard processes >= 1, processes == 1 || store.hasPrefix("postgres") else {
            throw ValidationError("--processes above 1 needs a store they share: --server postgres://…")
        }
    }

    func run() async throws {
        let files = FileLimit.raiseToHardLimit()
        // The devices of one account share its token here (a token each would take a process
        // each to make), so a token may hold as many polls as an account has devices; the
        // account's own share stays at its default.
        let served = try (0..<processes).map { _ in
            try BenchServer(store: server.store!, serveArguments: ["--max-polls-per-token", String(max(perAccount, 4))])
        }
        defer { served.forEach { $0.stop() } }
        let serverFiles = served[0].log.firstMatch(of: /open files up to (\d+)/).map { String($0.1) } ?? "?"
        print("remote: \(processes) ideabox serve over HTTP, store \(server.store!); the server's file limit \(serverFiles), this process's \(files)")
        if changes > 0 { try await latency(served[0]) }
        if idleDevices > 0 { try await idleCost(served[0]) }
        if listeners > 0 { try await fanOut(served) }
    }

    // MARK: (a) One change, A to B's screen model

    private func latency(_ served: BenchServer) async throws {
        let account = try served.newAccount("push-latency-\(getpid())")
        let a = PushDevice(client: try served.client(account))
        let b = PushDevice(client: try served.client(account))
        let screen = AppModel(repository: b.repository, language: .english, clock: .system)
        try screen.start()
        b.startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.b.notifications"))
        defer { b.stop() }
        try await waitUntil("B live") { b.engine.delivery == .live && b.engine.status.isSynced }

        var fromPush = Measurement(name: "A's push starts → B's screen model")
        var fromCommit = Measurement(name: "A's push answered → B's screen model")
        var fromSave = Measurement(name: "A's save → B's screen model, both engines")
        var idea: Idea?
        for index in 0..<changes * 2 {
            // The first half pushes by hand, to time the push; the second runs A's engine as the app does.
            let byEngine = index >= changes
            if index == changes { a.startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.a.notifications")) }
            let clock = ContinuousClock()
            let saved = clock.now
            let expected: IdeaCounts
            switch index % 3 {
            case 0:
                idea = try a.repository.addIdea(title: "push \(index)")
                expected = IdeaCounts(all: 1, completed: 0)
            case 1:
                _ = try a.repository.setCompleted(true, id: idea!.id)
                expected = IdeaCounts(all: 1, completed: 1)
            default:
                _ = try a.repository.deleteIdea(id: idea!.id)
                expected = IdeaCounts(all: 0, completed: 0)
            }
            let start = clock.now
            if byEngine {
                a.engine.localChangeHappened()
            } else {
                _ = try await a.session.run()
            }
            let committed = clock.now
            try await waitUntil("B's screen shows change \(index)", every: 0.0002) {
                screen.tick()
                return screen.counts == expected
            }
            if byEngine {
                fromSave.record(clock.now - saved)
            } else {
                fromPush.record(clock.now - start)
                fromCommit.record(clock.now - committed)
            }
        }
        a.stop()
        print("(a) one change A → B, \(changes) changes (add, complete, delete in turn) each way, B's engine and long poll running:")
        print("  " + fromPush.report)
        print("  " + fromCommit.report)
        print("  " + fromSave.report)
    }

    // MARK: (b) What an idle device costs

    private func idleCost(_ served: BenchServer) async throws {
        let account = try served.newAccount("push-idle-\(getpid())")
        let devices = try (0..<idleDevices).map { _ in PushDevice(client: try served.client(account)) }
        for (index, device) in devices.enumerated() {
            device.startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.idle.\(index)"))
        }
        defer { devices.forEach { $0.stop() } }
        try await waitUntil("every idle device live") { devices.allSatisfy { $0.engine.delivery == .live && $0.engine.status.isSynced } }
        try await Task.sleep(for: .seconds(1))
        let before = served.log.split(separator: "\n").count
        try await Task.sleep(for: .seconds(idleSeconds))
        let lines = served.log.split(separator: "\n").dropFirst(before)
        let theirs = lines.filter { $0.hasSuffix(" \(account.name)") || $0.contains(" /webcourier/") }
        let perMinute = Double(theirs.count) / Double(idleDevices) / (Double(idleSeconds) / 60)
        print("(b) \(idleDevices) idle devices for \(idleSeconds) s: \(theirs.count) requests in all, "
            + String(format: "%.2f", perMinute) + " per device per minute (the long polls; no other request)")
        if theirs.contains(where: { !$0.contains(" /webcourier/") }) {
            print("  other requests: " + theirs.filter { !$0.contains(" /webcourier/") }.joined(separator: " | "))
        }
    }

    // MARK: (c) Many devices holding polls while others write

    /// `listeners` devices hold long polls, `perAccount` to an account, spread over the
    /// servers; each account has one more device that writes. Each round `writers` of those
    /// write at once, the next accounts in turn, so every device is told of changes.
    private func fanOut(_ servers: [BenchServer]) async throws {
        let accountCount = listeners / perAccount
        let accounts = try (0..<accountCount).map { try servers[0].newAccount("push-fan-\(getpid())-\($0)") }
        // The devices of an account share a pool of connections (each app has its own). With
        // one pool for them all, every request and answer looked through ten thousand
        // connections: 14 % of this process's CPU in the rounds. Wire devices that poll
        // over connections of their own use it only to start (and for a fetch, rare) and the
        // writer to push: one connection each account then, so that the server holds as many
        // as with the polls in the pool.
        let ownPolls = devices == .wire && polls == .own
        let pools = try accounts.indices.map { try HTTPConnectionPool.with(connectionsPerHost: ownPolls ? 1 : perAccount + 8, instance: $0 + 1) }
        let writerDevices = accounts.indices.map { PushDevice(client: servers[$0 % servers.count].client(accounts[$0], pool: pools[$0])) }
        if writerSync == .send {
            // Each writer is an app that has started: its first sync made its zone and fetched,
            // so in the rounds a save goes as the app sends one, the push alone. It has saved
            // and sent once before too, as a device in use has: a first save's statements are
            // compiled on the writer's device, whose work here would take the cores from the
            // pushes and fan-outs measured.
            let failures = Locked(0)
            await withTaskGroup(of: Void.self) { group in
                for (index, writer) in writerDevices.enumerated() {
                    group.addTask {
                        do {
                            _ = try await writer.session.run()
                            _ = try writer.repository.addIdea(title: "before the rounds, from writer \(index)")
                            _ = try await writer.session.send()
                        } catch {
                            failures.withLock { $0 += 1 }
                        }
                    }
                }
            }
            guard failures.withLock({ $0 }) == 0 else { throw ValidationError("\(failures.withLock { $0 }) writers' first syncs failed") }
        }
        // Device `index` is of account `index % accountCount`, on the server after its writer's.
        let listening: [any FanOutDevice] = (0..<accountCount * perAccount).map { index in
            let account = index % accountCount
            let client = servers[(account + index / accountCount + 1) % servers.count].client(accounts[account], pool: pools[account])
            switch devices {
            case .wire:
                return WireDevice(
                    client: client, zone: SyncSession.zone, pollSeconds: ChangeListener.pollSeconds, resultsLimit: SyncSession.fetchLimit,
                    ownConnection: polls == .own)
            case .app: return PushDevice(client: client, recordsNotices: true)
            }
        }
        let clock = ContinuousClock()
        let startedAt = clock.now
        defer { listening.forEach { $0.stop() } }
        // A few hundred at a time, as devices come and go, not ten thousand in one second.
        for batch in stride(from: 0, to: listening.count, by: 500) {
            let starting = listening[batch..<min(batch + 500, listening.count)]
            try await Self.start(starting)
            try await waitUntil("devices \(batch + 1) to \(batch + starting.count) live", timeout: 600, every: 0.05) {
                starting.allSatisfy(\.isLive)
            }
        }
        let liveAfter = clock.now - startedAt
        try await Task.sleep(for: .seconds(2))
        let held = servers.map { $0.usage() }
        let refusedAtStart = servers.flatMap { $0.loggedLines(statusAtLeast: 500) }
        let refusedBefore = servers.map { $0.loggedLines(statusAtLeast: 500).count }

        // Every poll held, nothing written: what the servers spend on devices that wait.
        let idleStart = servers.map { $0.cpuTime() }
        let idleOwnStart = BenchServer.cpuTime(of: getpid())
        let idleClock = clock.now
        try await Task.sleep(for: .seconds(idleWindow))
        let idleMinutes = Double((clock.now - idleClock) / .milliseconds(1)) / 60_000
        let idleCPU = zip(servers, idleStart).map { $0.cpuTime() - $1 }.reduce(Duration.zero, +)
        let idleOwnCPU = BenchServer.cpuTime(of: getpid()) - idleOwnStart
        let idleWindowUsage = servers.map { $0.usage() }

        var notification = Measurement(name: "a push starts → notification at each device")
        // The two legs of it: the push's own round trip, and the fan-out after its answer.
        var pushAnswered = Measurement(name: "  a push starts → its answer at the writer")
        var fromAnswer = Measurement(name: "  its answer → notification at each device")
        var peak = zip(held, idleWindowUsage).map { (max($0.residentMiB, $1.residentMiB), max($0.openFiles, $1.openFiles)) }
        var written = [Int](repeating: writerSync == .send ? 1 : 0, count: accountCount)
        let busyStart = servers.map { $0.cpuTime() }
        let busyOwnStart = BenchServer.cpuTime(of: getpid())
        let busyClock = clock.now
        let loadBefore = Self.loadAverage()
        for round in 0..<rounds {
            let chosen = (0..<min(writers, accountCount)).map { (round * writers + $0) % accountCount }
            let starts = Locked([ContinuousClock.Instant](repeating: .now, count: chosen.count))
            let answers = Locked([ContinuousClock.Instant](repeating: .now, count: chosen.count))
            let failures = Locked(0)
            // Each writer saves its idea first, and all push at once (a task each) once every
            // one has saved: a save is the writer's own device's work, which on this machine
            // would take the cores from the pushes and their fan-out that are measured.
            for index in chosen.indices {
                do {
                    _ = try writerDevices[chosen[index]].repository.addIdea(title: "round \(round) from writer \(chosen[index])")
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            let writerSync = writerSync
            await withTaskGroup(of: Void.self) { group in
                for index in chosen.indices {
                    let writer = writerDevices[chosen[index]]
                    group.addTask {
                        do {
                            starts.withLock { $0[index] = .now }
                            switch writerSync {
                            case .send: _ = try await writer.session.send()
                            case .run: _ = try await writer.session.run()
                            }
                            answers.withLock { $0[index] = .now }
                        } catch {
                            failures.withLock { $0 += 1 }
                        }
                    }
                }
            }
            guard failures.withLock({ $0 }) == 0 else { throw ValidationError("a writer's sync failed in round \(round)") }
            for account in chosen { written[account] += 1 }
            let told = chosen.flatMap { account in (0..<perAccount).map { listening[account + $0 * accountCount] } }
            try await waitUntil("round \(round) everywhere", timeout: 300) {
                try told.enumerated().allSatisfy { try $1.ideaCount() == written[chosen[$0 / perAccount]] }
            }
            let (roundStarts, roundAnswers) = (starts.withLock { $0 }, answers.withLock { $0 })
            for (start, answer) in zip(roundStarts, roundAnswers) { pushAnswered.record(answer - start) }
            for (index, device) in told.enumerated() {
                let (start, answer) = (roundStarts[index / perAccount], roundAnswers[index / perAccount])
                if let noticed = device.notices.first(where: { $0 >= start }) {
                    notification.record(noticed - start)
                    fromAnswer.record(noticed - answer)
                }
            }
            peak = zip(peak, servers.map { $0.usage() }).map { (max($0.0, $1.residentMiB), max($0.1, $1.openFiles)) }
        }
        let busyCPU = zip(servers, busyStart).map { $0.cpuTime() - $1 }.reduce(Duration.zero, +)
        let busyOwnCPU = BenchServer.cpuTime(of: getpid()) - busyOwnStart
        let busyTime = clock.now - busyClock
        let loadAfter = Self.loadAverage()
        // What the servers keep once the rounds are over: at once, and 3 s later, once `serve`
        // has had time to give back what the rounds freed (it looks once a second).
        let afterRounds = servers.map { $0.usage().residentMiB }
        try await Task.sleep(for: .seconds(3))
        let settled = servers.map { $0.usage().residentMiB }
        let everyAccountWoken = rounds * min(writers, accountCount) >= accountCount
        // Every device holds exactly its writer's ideas: none lost, none twice, none other.
        var lost = 0
        var duplicated = 0
        var unexpected = 0
        var failures = 0
        for (index, device) in listening.enumerated() {
            let mine = try device.heldIdeas()
            let theirs = Set(try writerDevices[index % accountCount].repository.ideas(.all, limit: 100_000).map(\.id.lowercasedString))
            lost += theirs.subtracting(mine.names).count
            unexpected += mine.names.subtracting(theirs).count
            duplicated += mine.duplicated
            failures += device.failures
        }
        let refused = zip(servers, refusedBefore).flatMap { Array($0.loggedLines(statusAtLeast: 500).dropFirst($1)) }
        let kind = devices == .app ? "app devices" : "wire devices (polls over \(polls == .own ? "connections of their own" : "the app's client"))"
        print("(c) \(listening.count) \(kind) holding long polls (\(accountCount) accounts of \(perAccount)) on \(servers.count) server(s), "
            + "\(writers) writers at once (each a \(writerSync == .send ? "save's push alone" : "whole sync")), \(rounds) rounds; every device live after \(Measurement.milliseconds(liveAfter)):")
        print("  " + notification.report)
        print("  " + pushAnswered.report)
        print("  " + fromAnswer.report)
        for (index, server) in servers.enumerated() {
            print("  server \(index + 1) with every poll held: \(held[index].residentMiB) MiB resident, \(held[index].openFiles) open files; "
                + "at its peak \(peak[index].0) MiB, \(peak[index].1) open files (high-water mark \(server.peakResidentMiB) MiB); "
                + "after the rounds (\(everyAccountWoken ? "every device answered at least once" : "some devices never answered")) "
                + "\(afterRounds[index]) MiB, 3 s later \(settled[index]) MiB")
        }
        let perDeviceMinute = Double(idleCPU / .microseconds(1)) / Double(listening.count) / idleMinutes
        print("  idle, every poll held for " + String(format: "%.1f", idleMinutes) + " min: servers' CPU \(Measurement.milliseconds(idleCPU)), "
            + String(format: "%.2f", perDeviceMinute) + " µs per idle device per minute; this process's CPU \(Measurement.milliseconds(idleOwnCPU))")
        print("  rounds (\(Measurement.milliseconds(busyTime))): servers' CPU \(Measurement.milliseconds(busyCPU)) for \(rounds * min(writers, accountCount)) pushes, "
            + "this process's (writers and devices) \(Measurement.milliseconds(busyOwnCPU)); load average \(loadBefore) before, \(loadAfter) after")
        print("  refused (status 500 or above): \(refusedAtStart.count) while the devices started"
            + (refusedAtStart.isEmpty ? "" : " (" + refusedAtStart.prefix(3).joined(separator: " | ") + ")")
            + ", \(refused.count) after" + (refused.isEmpty ? "" : ": " + refused.prefix(5).joined(separator: " | ")))
        print("  converged: every device holds its writer's ideas; \(lost) lost, \(duplicated) duplicated, \(unexpected) not its writer's; "
            + "\(failures) of the devices' requests failed (retried)")
    }

    /// Starts `starting`, 16 at a time (each awaits its subscription's answers, then polls).
    private static func start(_ starting: ArraySlice<any FanOutDevice>) async throws {
        let failures = Locked(0)
        let devices = Array(starting)
        let lanes = 16
        await withTaskGroup(of: Void.self) { group in
            for first in 0..<lanes {
                group.addTask {
                    for device in stride(from: first, to: devices.count, by: lanes).map({ devices[$0] }) {
                        do {
                            try await device.start()
                        } catch {
                            failures.withLock { $0 += 1 }
                        }
                    }
                }
            }
        }
        guard failures.withLock({ $0 }) == 0 else { throw ValidationError("\(failures.withLock { $0 }) devices could not start") }
    }

    /// The load average over the last minute, from /proc.
    private static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").first.map(String.init) ?? "?"
    }

}

/// What listens in the fan-out part: `wire`, the app's requests alone (`WireDevice`), or
/// `app`, the whole app (`PushDevice`).
enum DeviceKind: String, ExpressibleByArgument, CaseIterable {
    case wire, app
}

/// Over what a wire device's long polls go: `own`, a connection of its own (`PollConnection`),
/// or `client`, the app's HTTP client.
enum PollTransport: String, ExpressibleByArgument, CaseIterable {
    case own, client
}

/// How a writer sends its change in the fan-out part: `send`, the push alone (a save, as the
/// app sends it since issue 40 part 1), or `run`, a whole sync (its zones, a pull, the push).
enum WriterSync: String, ExpressibleByArgument, CaseIterable {
    case send, run
}

/// A device that listens in the fan-out part.
private protocol FanOutDevice: Sendable {
    /// Starts listening (and fetching what is there).
    func start() async throws
    /// Whether it holds its long poll and has what it was told of.
    var isLive: Bool { get }
    /// When each notification arrived.
    var notices: [ContinuousClock.Instant] { get }
    /// How many ideas it holds.
    func ideaCount() throws -> Int
    /// The record names of the ideas it holds, and how many of them reached it twice.
    func heldIdeas() throws -> (names: Set<String>, duplicated: Int)
    /// How many of its requests failed.
    var failures: Int { get }
    /// Stops after the poll held.
    func stop()
}

extension WireDevice: FanOutDevice {
    func ideaCount() -> Int { recordNames.count }

    func heldIdeas() -> (names: Set<String>, duplicated: Int) { (recordNames, duplicates) }
}

extension PushDevice: FanOutDevice {
    func start() {
        startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.fan-out.notifications"))
    }

    var isLive: Bool { engine.delivery == .live && engine.status.isSynced }

    func ideaCount() throws -> Int { try repository.counts().all }

    func heldIdeas() throws -> (names: Set<String>, duplicated: Int) {
        let ideas = try repository.ideas(.all, limit: 100_000)
        let names = Set(ideas.map(\.id.lowercasedString))
        return (names, ideas.count - names.count)
    }

    /// The engine counts its failures in its status, not here.
    var failures: Int { 0 }
}

extension SyncStatus {
    /// Whether the last sync succeeded.
    fileprivate var isSynced: Bool {
        if case .synced = self { return true }
        return false
    }
}
