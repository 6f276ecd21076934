import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// Three devices (profiles A, B, C of one data root, so one embedded remote) walked through a
/// seeded random plan of what people do, by the real binaries: adds, edits of each field,
/// done and undone, deletes, syncs, the network off and on, failing requests, overwrites that
/// fail and that work, an export imported on another device, an edit made under a clock a day
/// fast or slow, and C signing in after using IdeaBox on its own for a while. Then every fault
/// heals, every device syncs until quiet, and `violations()` says what broke:
/// - every device lists the same ideas, with the same values and times;
/// - no idea appears that nobody added, and nothing shows a time in the future;
/// - every value a device wrote is current or in some device's history;
/// - a deleted idea is back only if a device wrote to it (or overwrote the remote with it)
///   later, or its only writes were made under a wrong clock (ordered where they arrived);
/// - two devices' edits of different fields of one idea, made apart, both survive (checked
///   where the plan makes them).
struct ThreeDeviceWalk {
    /// One planned action; ideas are picked at run time by `pick` among those the device lists.
    enum Step: CustomStringConvertible, Sendable {
        case add(device: Int, title: String, description: String)
        case editTitle(device: Int, pick: Int, title: String)
        case editDescription(device: Int, pick: Int, description: String)
        case toggle(device: Int, pick: Int)
        case remove(device: Int, pick: Int)
        case sync(device: Int)
        case offline(device: Int, isOn: Bool)
        case failNextSend(device: Int)
        case overwrite(device: Int)
        case skewedEdit(device: Int, pick: Int, title: String, days: Int)
        case exportImport(from: Int, to: Int)
        case apartEdits(first: Int, second: Int, pick: Int, title: String, description: String)
        case join

        var description: String {
            switch self {
            case let .add(device, title, description): "\(Self.name(device)): add \"\(title)\" -d \"\(description)\""
            case let .editTitle(device, pick, title): "\(Self.name(device)): edit #\(pick) --title \"\(title)\""
            case let .editDescription(device, pick, text): "\(Self.name(device)): edit #\(pick) --description \"\(text)\""
            case let .toggle(device, pick): "\(Self.name(device)): done/undone #\(pick)"
            case let .remove(device, pick): "\(Self.name(device)): rm #\(pick)"
            case let .sync(device): "\(Self.name(device)): sync"
            case let .offline(device, isOn): "\(Self.name(device)): remote offline \(isOn ? "on" : "off")"
            case let .failNextSend(device): "\(Self.name(device)): remote fault script networkFailure --operation modify"
            case let .overwrite(device): "\(Self.name(device)): sync --overwrite-remote --yes"
            case let .skewedEdit(device, pick, title, days): "\(Self.name(device)): edit #\(pick) --title \"\(title)\" with the clock \(days) day(s) off"
            case let .exportImport(from, to): "\(Self.name(from)): export; \(Self.name(to)): import it"
            case let .apartEdits(first, second, pick, title, text):
                "\(Self.name(first)) and \(Self.name(second)) apart: #\(pick) --title \"\(title)\" / --description \"\(text)\""
            case .join: "C: account sign-in walk (after using IdeaBox on its own)"
            }
        }

        static func name(_ device: Int) -> String { ThreeDeviceWalk.profiles[device] }
    }

    static let profiles = ["A", "B", "C"]
    /// The account the walk syncs in; C uses the embedded `default` until it joins.
    static let account = "walk"

    /// The plan a seed makes: `count` steps.
    static func plan(seed: UInt64, count: Int) -> [Step] {
        var random = SeededRandomNumberGenerator(seed: seed)
        let words = ["idea", "靈感", "plan 計畫", "tea 🍵", "review", "臺北 workshop"]
        var counter = 0
        func text(_ kind: String) -> String {
            counter += 1
            return "\(kind) \(counter) \(words.randomElement(using: &random)!)"
        }
        var steps: [Step] = []
        var joined = false
        for index in 0..<count {
            let device = Int.random(in: 0..<(joined ? 3 : 3), using: &random)
            let pick = Int.random(in: 0..<50, using: &random)
            if !joined && index >= count / 2 && Int.random(in: 0..<4, using: &random) == 0 {
                joined = true
                steps.append(.join)
                continue
            }
            let other = (device + Int.random(in: 1...2, using: &random)) % 3
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<18: steps.append(.add(device: device, title: text("title"), description: Bool.random(using: &random) ? text("text") : ""))
            case 18..<30: steps.append(.editTitle(device: device, pick: pick, title: text("title")))
            case 30..<40: steps.append(.editDescription(device: device, pick: pick, description: text("text")))
            case 40..<48: steps.append(.toggle(device: device, pick: pick))
            case 48..<54: steps.append(.remove(device: device, pick: pick))
            case 54..<74: steps.append(.sync(device: device))
            case 74..<79: steps.append(.offline(device: device, isOn: Bool.random(using: &random)))
            case 79..<83: steps.append(.failNextSend(device: device))
            case 83..<85: steps.append(.overwrite(device: device))
            case 85..<89: steps.append(.skewedEdit(device: device, pick: pick, title: text("skewed"), days: Bool.random(using: &random) ? 1 : -1))
            case 89..<93: steps.append(.exportImport(from: device, to: other))
            default: steps.append(.apartEdits(first: device, second: other, pick: pick, title: text("apart"), description: text("apart")))
            }
        }
        if !joined { steps.append(.join) }
        return steps
    }

    let sandbox: Sandbox
    /// Every id a device added.
    private(set) var added: Set<String> = []
    /// Every title and description value a device wrote, by idea.
    private(set) var written: [String: Set<String>] = [:]
    /// The step of each idea's latest delete, and of its latest write or overwrite.
    private(set) var lastDelete: [String: Int] = [:]
    private(set) var lastWrite: [String: Int] = [:]
    /// Ideas written under a wrong clock: ordered where the remote received them.
    private(set) var skewed: Set<String> = []
    /// What broke while the plan ran (a crash, a lost apart edit).
    private(set) var runViolations: [String] = []
    private var hasJoined = false
    private var step = 0

    init() throws {
        sandbox = try Sandbox()
        for device in 0..<2 {
            try sandbox.succeed(on: Self.profiles[device], ["account", "sign-in", Self.account])
        }
        // C starts on its own, in the embedded account `default`.
        try sandbox.sync("C")
    }

    /// Runs `steps`, then heals every fault and syncs every device until quiet.
    mutating func run(_ steps: [Step]) throws {
        for planned in steps {
            step += 1
            try perform(planned)
        }
        try settle()
    }

    private mutating func perform(_ planned: Step) throws {
        switch planned {
        case let .add(device, title, description):
            let id = try sandbox.succeed(on: Self.profiles[device], ["add", title, "-d", description]).trimmingCharacters(in: .newlines)
            added.insert(id)
            noteWrite(id, [title, description])
        case let .editTitle(device, pick, title):
            guard let id = try idea(pick, on: device) else { return }
            try sandbox.succeed(on: Self.profiles[device], ["edit", id, "--title", title])
            noteWrite(id, [title])
        case let .editDescription(device, pick, text):
            guard let id = try idea(pick, on: device) else { return }
            try sandbox.succeed(on: Self.profiles[device], ["edit", id, "--description", text])
            noteWrite(id, [text])
        case let .toggle(device, pick):
            guard let idea = try ideas(on: device).element(pick) else { return }
            try sandbox.succeed(on: Self.profiles[device], [idea.isCompleted ? "undone" : "done", idea.idString])
            noteWrite(idea.idString, [])
        case let .remove(device, pick):
            guard let id = try idea(pick, on: device) else { return }
            try sandbox.succeed(on: Self.profiles[device], ["rm", id])
            lastDelete[id] = step
        case let .sync(device):
            try expectOneSentenceIfFailed(sandbox.run(on: Self.profiles[device], ["sync"]), planned)
        case let .offline(device, isOn):
            try sandbox.succeed(on: Self.profiles[device], ["remote", "offline", isOn ? "on" : "off"])
        case let .failNextSend(device):
            try sandbox.succeed(on: Self.profiles[device], ["remote", "fault", "script", "networkFailure", "--operation", "modify"])
        case let .overwrite(device):
            let result = try sandbox.run(on: Self.profiles[device], ["sync", "--overwrite-remote", "--yes"])
            try expectOneSentenceIfFailed(result, planned)
            if result.status == 0 {
                for idea in try ideas(on: device) { lastWrite[idea.idString] = step }
            }
        case let .skewedEdit(device, pick, title, days):
            guard let id = try idea(pick, on: device) else { return }
            let skew = ["IDEABOX_CLOCK_OFFSET_MS": String(Int64(days) * 86_400_000)]
            try sandbox.succeed(on: Self.profiles[device], ["edit", id, "--title", title], environment: skew)
            try expectOneSentenceIfFailed(sandbox.run(on: Self.profiles[device], ["sync"], environment: skew), planned)
            noteWrite(id, [title])
            skewed.insert(id)
        case let .exportImport(from, to):
            let file = sandbox.directory.appendingPathComponent("walk-\(step).json").path
            try sandbox.succeed(on: Self.profiles[from], ["export", "--output", file])
            try sandbox.succeed(on: Self.profiles[to], ["import", file])
        case let .apartEdits(first, second, pick, title, text):
            try apartEdits(first, second, pick: pick, title: title, description: text)
        case .join:
            guard !hasJoined else { return }
            hasJoined = true
            try sandbox.succeed(on: "C", ["account", "sign-in", Self.account, "--merge"])
        }
    }

    /// Two devices in step, then one edits the title and the other the description, each
    /// without the other's; after both sync, both edits are on both.
    private mutating func apartEdits(_ first: Int, _ second: Int, pick: Int, title: String, description: String) throws {
        let pair = [first, second]
        guard hasJoined || !pair.contains(2) else { return }
        for device in pair {
            try sandbox.succeed(on: Self.profiles[device], ["remote", "offline", "off"])
            try sandbox.succeed(on: Self.profiles[device], ["remote", "fault", "clear"])
        }
        for device in pair + [first] { try sandbox.succeed(on: Self.profiles[device], ["sync"]) }
        let shared = Set(try ideas(on: second).map(\.idString))
        guard let id = try ideas(on: first).filter({ shared.contains($0.idString) }).element(pick)?.idString else { return }
        try sandbox.succeed(on: Self.profiles[first], ["edit", id, "--title", title])
        try sandbox.succeed(on: Self.profiles[second], ["edit", id, "--description", description])
        noteWrite(id, [title, description])
        for device in pair + [first] { try sandbox.succeed(on: Self.profiles[device], ["sync"]) }
        for device in pair {
            let held = try sandbox.ideas(on: Self.profiles[device]).first { $0.idString == id }
            if held?.title != title || held?.description != description {
                runViolations.append("step \(step): apart edits of \(id.prefix(8)) on \(Self.profiles[device]): \(String(describing: held))")
            }
        }
    }

    /// Every fault off, C joined, and every device synced until a round moves nothing.
    private mutating func settle() throws {
        if !hasJoined { try perform(.join) }
        for profile in Self.profiles {
            try sandbox.succeed(on: profile, ["remote", "offline", "off"])
            try sandbox.succeed(on: profile, ["remote", "fault", "clear"])
        }
        for _ in 0..<4 {
            var moved = false
            for profile in Self.profiles {
                let outcome = try sandbox.sync(profile)
                moved = moved || outcome.sent > 0 || outcome.received > 0 || outcome.pending > 0
            }
            if !moved { return }
        }
        runViolations.append("the devices never went quiet")
    }

    /// The invariants the walk broke, each a line.
    func violations() throws -> [String] {
        var found = runViolations
        // By id: ideas made in one millisecond (brought back to one time) list in any order.
        let states = try Self.profiles.map { try sandbox.syncedState(of: $0).sorted { $0.idString < $1.idString } }
        for (index, state) in states.enumerated().dropFirst() where state != states[0] {
            let here = Set(state.map(Self.summary)), there = Set(states[0].map(Self.summary))
            found.append("\(Self.profiles[index]) differs from A: only \(Self.profiles[index]) \(here.subtracting(there).sorted()), only A \(there.subtracting(here).sorted())")
        }
        let latest = Timestamp(Date()).adding(milliseconds: 2_000)
        for idea in states[0] {
            if !added.contains(idea.idString) { found.append("\(idea.idString) was never added") }
            if idea.createdAt > latest || idea.updatedAt > latest { found.append("\(Self.summary(idea)) shows a time in the future") }
            if let deleted = lastDelete[idea.idString], (lastWrite[idea.idString] ?? 0) < deleted, !skewed.contains(idea.idString) {
                found.append("\(Self.summary(idea)) came back: deleted at step \(deleted), no later write")
            }
        }
        let current = Dictionary(uniqueKeysWithValues: states[0].map { ($0.idString, $0) })
        for (id, values) in written {
            guard let idea = current[id] else { continue }
            var kept: Set<String> = [idea.title, idea.description]
            for profile in Self.profiles {
                let result = try sandbox.run(on: profile, ["history", id, "--json"])
                guard result.status == 0, let versions = try? JSONDecoder().decode([Version].self, from: Data(result.stdout.utf8)) else { continue }
                for version in versions { kept.formUnion([version.title, version.description]) }
            }
            for value in values.subtracting(kept) where !value.isEmpty {
                found.append("\(id.prefix(8)): \"\(value)\" is nowhere: not current, not in any history")
            }
        }
        return found
    }

    /// One version of `history --json`, the values only.
    private struct Version: Decodable {
        var title: String
        var description: String
    }

    private mutating func noteWrite(_ id: String, _ values: [String]) {
        written[id, default: []].formUnion(values)
        lastWrite[id] = step
    }

    /// The id of idea number `pick` (modulo how many there are) on `device`, if it has any.
    private func idea(_ pick: Int, on device: Int) throws -> String? {
        try ideas(on: device).element(pick)?.idString
    }

    private func ideas(on device: Int) throws -> [Idea] {
        try sandbox.ideas(["--all", "--profile", Self.profiles[device]])
    }

    /// A sync that could not work (offline, a scripted failure) says one sentence and exits 1.
    private mutating func expectOneSentenceIfFailed(_ result: CommandResult, _ planned: Step) throws {
        guard result.status != 0 else { return }
        let lines = result.stderr.split(separator: "\n")
        if result.status != 1 || lines.count != 1 || !result.stdout.isEmpty {
            runViolations.append("step \(step) (\(planned)) failed badly: \(result)")
        }
    }

    private static func summary(_ idea: Idea) -> String {
        "\(idea.idString.prefix(8)) \"\(idea.title)\" \"\(idea.description)\" done=\(idea.isCompleted) created \(idea.createdAt.milliseconds) "
            + "at \(idea.updatedAt.milliseconds) by \(idea.deviceId.prefix(8)) v\(idea.version)"
    }
}

extension Array {
    /// The element at `pick` modulo the count; nil if empty.
    fileprivate func element(_ pick: Int) -> Element? {
        isEmpty ? nil : self[pick % count]
    }
}
