import Foundation
import ProcessTestSupport
import Testing

/// `ThreeDeviceWalk` run for a few seeds on every run, more on demand, and the walks that
/// found the holes of issue 57 as fixed plans. A failing walk is shrunk to a short plan, which
/// the failure prints with its seed.
@Suite(.serialized, .takesTurns) struct ThreeDeviceWalkTests {
    /// The seeds every run walks (each some ten seconds); `manyWalksHold` walks more.
    static let seeds: [UInt64] = [1, 2, 3]

    /// Steps in one walk.
    static let steps = 60

    @Test(arguments: seeds)
    func aSeededWalkLosesNothing(seed: UInt64) async throws {
        try await walkAndShrink(seed: seed, backend: .embedded)
    }

    /// The same through a real `ideabox serve`, killed with -9 now and then.
    @Test(arguments: seeds.prefix(2))
    func aSeededWalkThroughServeLosesNothing(seed: UInt64) async throws {
        try await walkAndShrink(seed: seed, backend: .served)
    }

    private func walkAndShrink(seed: UInt64, backend: ThreeDeviceWalk.Backend) async throws {
        let plan = ThreeDeviceWalk.plan(seed: seed, count: Self.steps, backend: backend)
        let found = try await Self.walk(plan, backend: backend)
        print("walk seed \(seed) (\(backend)): \(plan.count) steps, \(found.isEmpty ? "held" : "\(found.count) violation(s)")")
        guard !found.isEmpty else { return }
        let shrunk = try await Self.shrink(plan, backend: backend)
        Issue.record(Comment(rawValue: """
            seed \(seed) (\(backend)): \(found.joined(separator: "\n"))
            shrunk to \(shrunk.count) steps:
            \(shrunk.map(\.description).joined(separator: "\n"))
            """))
    }

    /// `IDEABOX_WALK_RUNS` seeds from `IDEABOX_WALK_FIRST` (default 1), one after another, on
    /// `IDEABOX_WALK_BACKEND` (`embedded`, the default, or `served`), printing how many held
    /// and how long they took (BENCHMARKS.md, "Long property runs").
    @Test(.enabled(if: ProcessInfo.processInfo.environment["IDEABOX_WALK_RUNS"] != nil))
    func manyWalksHold() async throws {
        let environment = ProcessInfo.processInfo.environment
        let runs = UInt64(environment["IDEABOX_WALK_RUNS"].flatMap(Int.init) ?? 0)
        let first = UInt64(environment["IDEABOX_WALK_FIRST"].flatMap(Int.init) ?? 1)
        let backend = environment["IDEABOX_WALK_BACKEND"].flatMap(ThreeDeviceWalk.Backend.init) ?? .embedded
        let started = ContinuousClock.now
        var failed: [UInt64] = []
        for seed in first..<(first + runs) {
            let plan = ThreeDeviceWalk.plan(seed: seed, count: Self.steps, backend: backend)
            let found: [String]
            do {
                found = try await Self.walk(plan, backend: backend)
            } catch {
                found = ["\(error)"]
            }
            if !found.isEmpty {
                failed.append(seed)
                print("walk seed \(seed) (\(backend)): \(found.joined(separator: "; "))")
            }
        }
        print("walks: \(runs) seeds from \(first) (\(backend)), \(Self.steps) steps each, \(runs - UInt64(failed.count)) held, in \(ContinuousClock.now - started)")
        #expect(failed.isEmpty, "seeds \(failed)")
    }

    /// The sequences of issue 57 the walk did not take before: an overwrite that fails on a
    /// device that then syncs; C signing in after using IdeaBox alone; an edit under a clock a
    /// day fast, then apart edits; an export imported after the other device's edit.
    @Test func theSequencesOfIssue57() async throws {
        let plan: [ThreeDeviceWalk.Step] = [
            .add(device: 0, title: "X", description: ""), .add(device: 2, title: "made alone on C", description: "before signing in"),
            .sync(device: 0), .sync(device: 1), .sync(device: 2),
            .editTitle(device: 0, pick: 0, title: "X renamed on A"), .sync(device: 0),
            .failNextSend(device: 1), .overwrite(device: 1), .sync(device: 1),
            .skewedEdit(device: 0, pick: 0, title: "from a fast clock", days: 1),
            .apartEdits(first: 0, second: 1, pick: 0, title: "apart title", description: "apart description"),
            .editDescription(device: 0, pick: 0, description: "A's newer description"),
            .editTitle(device: 1, pick: 0, title: "B's title before seeing it"), .exportImport(from: 1, to: 0),
            .join, .remove(device: 1, pick: 0), .skewedEdit(device: 2, pick: 0, title: "from a slow clock", days: -1),
        ]
        let found = try await Self.walk(plan)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Through `serve`: library files on every device (C's made before it joins), the server
    /// killed with edits waiting, encryption turned on, C joining and unlocking, a restore of a
    /// deleted idea, latency, and encryption turned off again.
    @Test func encryptionLibraryAndAKilledServerThroughServe() async throws {
        let plan: [ThreeDeviceWalk.Step] = [
            .add(device: 0, title: "kept through it all", description: "一"), .add(device: 2, title: "C's own", description: ""),
            .libraryWrite(device: 0, file: 0, text: "A's favorites"), .libraryWrite(device: 2, file: 1, text: "C's note 筆記"),
            .sync(device: 0), .sync(device: 1), .serverKilled, .editTitle(device: 1, pick: 0, title: "B's edit while serve is down"),
            .sync(device: 1), .libraryWrite(device: 1, file: 2, text: "B's plan"), .serverStarted, .sync(device: 1),
            .encryption(device: 0, isOn: true), .libraryWrite(device: 1, file: 3, text: "sealed favorite item"),
            .latency(device: 0, milliseconds: 150), .remove(device: 0, pick: 0), .sync(device: 0), .join,
            .restore(device: 2, pick: 0), .libraryWrite(device: 2, file: 0, text: "C's favorites, later"),
            .encryption(device: 2, isOn: false), .sync(device: 1),
        ]
        let found = try await Self.walk(plan, backend: .served)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Runs `plan` on three new devices and returns what broke.
    private static func walk(_ plan: [ThreeDeviceWalk.Step], backend: ThreeDeviceWalk.Backend = .embedded) async throws -> [String] {
        var walk = try await ThreeDeviceWalk(backend: backend)
        try await walk.run(plan)
        return try await walk.violations()
    }

    /// A shorter plan that still breaks something: halves, then single steps, left out while
    /// what is left still fails; at most 40 walks.
    private static func shrink(_ plan: [ThreeDeviceWalk.Step], backend: ThreeDeviceWalk.Backend) async throws -> [ThreeDeviceWalk.Step] {
        var plan = plan
        var budget = 40
        var chunk = plan.count / 2
        while chunk >= 1 && budget > 0 {
            var start = 0
            while start < plan.count && budget > 0 {
                var shorter = plan
                shorter.removeSubrange(start..<min(start + chunk, plan.count))
                budget -= 1
                if try await !walk(shorter, backend: backend).isEmpty {
                    plan = shorter
                } else {
                    start += chunk
                }
            }
            chunk /= 2
        }
        return plan
    }
}
