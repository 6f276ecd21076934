import Foundation
import IdeaBoxFoundation
import IdeaModel
import ProcessTestSupport
import Testing

/// Three devices (profiles A, B, C of one data root) walked through a seeded random plan of
/// what people do, by the real binaries, on the embedded remote or through a real `ideabox
/// serve`: adds, edits of each field, done and undone, deletes, restores from history, syncs,
/// the network off and on, latency, failing requests (scripted and at random), overwrites
/// that fail and that work, an export imported on another device, an edit made under a clock
/// a day fast or slow, library files written, encryption turned on and off, `serve` killed
/// with -9 and started again, and C signing in after using IdeaBox on its own for a while.
/// Then every fault heals, every device syncs its ideas and library until quiet, and
/// `violations()` says what broke:
/// - every device lists the same ideas, with the same values and times, and holds the same
///   library files, each with bytes some device wrote to it;
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
        /// A quarter of the device's requests fail at random (a network failure) until healed.
        case randomFaults(device: Int)
        case overwrite(device: Int)
        case skewedEdit(device: Int, pick: Int, title: String, days: Int)
        case exportImport(from: Int, to: Int)
        case apartEdits(first: Int, second: Int, pick: Int, title: String, description: String)
        case join
        /// `restore` of an older version of the idea `pick` among every idea added so far.
        case restore(device: Int, pick: Int)
        case latency(device: Int, milliseconds: Int)
        /// `file` (an index into `libraryFiles`) written with `text`, then `library sync`.
        case libraryWrite(device: Int, file: Int, text: String)
        /// The account's encryption turned on or off here; the other devices unlock or let go.
        case encryption(device: Int, isOn: Bool)
        /// `serve` killed with -9 (served walks only), and started again.
        case serverKilled
        case serverStarted

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
            case let .randomFaults(device): "\(Self.name(device)): remote fault add networkFailure --rate 0.25"
            case let .overwrite(device): "\(Self.name(device)): sync --overwrite-remote --yes"
            case let .skewedEdit(device, pick, title, days): "\(Self.name(device)): edit #\(pick) --title \"\(title)\" with the clock \(days) day(s) off"
            case let .exportImport(from, to): "\(Self.name(from)): export; \(Self.name(to)): import it"
            case let .apartEdits(first, second, pick, title, text):
                "\(Self.name(first)) and \(Self.name(second)) apart: #\(pick) --title \"\(title)\" / --description \"\(text)\""
            case .join: "C: account sign-in walk (after using IdeaBox on its own)"
            case let .restore(device, pick): "\(Self.name(device)): restore an older version of added idea #\(pick)"
            case let .latency(device, milliseconds): "\(Self.name(device)): remote latency \(milliseconds)"
            case let .libraryWrite(device, file, text): "\(Self.name(device)): write \(ThreeDeviceWalk.libraryFiles[file]) \"\(text)\"; library sync"
            case let .encryption(device, isOn): "\(Self.name(device)): account encryption \(isOn ? "enable" : "disable")"
            case .serverKilled: "kill -9 serve"
            case .serverStarted: "start serve again"
            }
        }

        static func name(_ device: Int) -> String { ThreeDeviceWalk.profiles[device] }
    }

    /// Where the devices sync: the embedded remote, or a real `ideabox serve` on 127.0.0.1.
    enum Backend: String, Sendable, CustomStringConvertible {
        case embedded, served

        var description: String { rawValue }
    }

    static let profiles = ["A", "B", "C"]
    /// The account the walk syncs in; C uses the embedded `default` until it joins.
    static let account = "walk"
    /// The library files the walk writes, in the synced layout.
    static let libraryFiles = ["Favorite.json", "Items/靈感筆記.json", "Items/plan.json", "FavoriteItems/fav.json"]
    static let passphrase = "walk passphrase 散步"

    /// The plan a seed makes: `count` steps, and a start after each kill of `serve`.
    static func plan(seed: UInt64, count: Int, backend: Backend = .embedded) -> [Step] {
        var random = SeededRandomNumberGenerator(seed: seed)
        let words = ["idea", "靈感", "plan 計畫", "tea 🍵", "review", "臺北 workshop"]
        var counter = 0
        func text(_ kind: String) -> String {
            counter += 1
            return "\(kind) \(counter) \(words.randomElement(using: &random)!)"
        }
        var steps: [Step] = []
        var joined = false
        var downFor: Int?
        for index in 0..<count {
            if let left = downFor {
                downFor = left > 1 ? left - 1 : nil
                if downFor == nil { steps.append(.serverStarted) }
            }
            let device = Int.random(in: 0..<3, using: &random)
            let pick = Int.random(in: 0..<50, using: &random)
            if !joined && index >= count / 2 && Int.random(in: 0..<4, using: &random) == 0 {
                joined = true
                steps.append(.join)
                continue
            }
            let other = (device + Int.random(in: 1...2, using: &random)) % 3
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<16: steps.append(.add(device: device, title: text("title"), description: Bool.random(using: &random) ? text("text") : ""))
            case 16..<27: steps.append(.editTitle(device: device, pick: pick, title: text("title")))
            case 27..<36: steps.append(.editDescription(device: device, pick: pick, description: text("text")))
            case 36..<43: steps.append(.toggle(device: device, pick: pick))
            case 43..<48: steps.append(.remove(device: device, pick: pick))
            case 48..<51: steps.append(.restore(device: device, pick: pick))
            case 51..<68: steps.append(.sync(device: device))
            case 68..<72: steps.append(.offline(device: device, isOn: Bool.random(using: &random)))
            case 72..<75: steps.append(pick.isMultiple(of: 2) ? .failNextSend(device: device) : .randomFaults(device: device))
            case 75..<77: steps.append(.overwrite(device: device))
            case 77..<80: steps.append(.skewedEdit(device: device, pick: pick, title: text("skewed"), days: Bool.random(using: &random) ? 1 : -1))
            case 80..<83: steps.append(.exportImport(from: device, to: other))
            case 83..<86: steps.append(.latency(device: device, milliseconds: [0, 40, 150].randomElement(using: &random)!))
            case 86..<91: steps.append(.libraryWrite(device: device, file: pick % libraryFiles.count, text: text("file")))
            case 91..<93: steps.append(.encryption(device: device, isOn: Bool.random(using: &random)))
            case 93..<95 where backend == .served && downFor == nil:
                steps.append(.serverKilled)
                downFor = Int.random(in: 1...4, using: &random)
            default: steps.append(.apartEdits(first: device, second: other, pick: pick, title: text("apart"), description: text("apart")))
            }
        }
        if downFor != nil { steps.append(.serverStarted) }
        if !joined { steps.append(.join) }
        return steps
    }

    let sandbox: Sandbox
    let backend: Backend
    /// The server of a served walk, and the account's token on it.
    private let server: ServeProcess?
    private let token: String?
    /// Every id a device added.
    private(set) var added: Set<String> = []
    /// Every title and description value a device wrote, by idea.
    private(set) var written: [String: Set<String>] = [:]
    /// The step of each idea's latest delete, and of its latest write or overwrite.
    private(set) var lastDelete: [String: Int] = [:]
    private(set) var lastWrite: [String: Int] = [:]
    /// Ideas written under a wrong clock: ordered where the remote received them.
    private(set) var skewed: Set<String> = []
    /// Every text a device wrote to each library file.
    private(set) var libraryWritten: [String: Set<String>] = [:]
    /// What broke while the plan ran (a crash, a lost apart edit).
    private(set) var runViolations: [String] = []
    private var hasJoined = false
    private var isEncrypted = false
    private var isServerDown = false
    private var step = 0

    init(backend: Backend = .embedded) async throws {
        sandbox = try Sandbox()
        self.backend = backend
        if backend == .served {
            let server = try ServeProcess()
            token = try await server.addAccount(Self.account)
            try await server.start()
            self.server = server
        } else {
            server = nil
            token = nil
        }
        for device in 0..<2 {
            try await sandbox.succeed(on: Self.profiles[device], try signIn)
        }
        // C starts on its own, in the embedded account `default`.
        try await sandbox.sync("C")
    }

    /// `account sign-in` to the walk's account, on the embedded remote or on the server.
    private var signIn: [String] {
        get throws {
            guard let server, let token else { return ["account", "sign-in", Self.account] }
            return ["account", "sign-in", Self.account, "--server", try server.url, "--token", token]
        }
    }

    /// Runs `steps`, then heals every fault and syncs every device until quiet.
    mutating func run(_ steps: [Step]) async throws {
        for planned in steps {
            step += 1
            try await perform(planned)
        }
        try await settle()
    }

    private mutating func perform(_ planned: Step) async throws {
        switch planned {
        case let .add(device, title, description):
            let id = try await sandbox.succeed(on: Self.profiles[device], ["add", title, "-d", description]).trimmingCharacters(in: .newlines)
            added.insert(id)
            noteWrite(id, [title, description])
        case let .editTitle(device, pick, title):
            guard let id = try await idea(pick, on: device) else { return }
            try await sandbox.succeed(on: Self.profiles[device], ["edit", id, "--title", title])
            noteWrite(id, [title])
        case let .editDescription(device, pick, text):
            guard let id = try await idea(pick, on: device) else { return }
            try await sandbox.succeed(on: Self.profiles[device], ["edit", id, "--description", text])
            noteWrite(id, [text])
        case let .toggle(device, pick):
            guard let idea = try await ideas(on: device).element(pick) else { return }
            try await sandbox.succeed(on: Self.profiles[device], [idea.isCompleted ? "undone" : "done", idea.idString])
            noteWrite(idea.idString, [])
        case let .remove(device, pick):
            guard let id = try await idea(pick, on: device) else { return }
            try await sandbox.succeed(on: Self.profiles[device], ["rm", id])
            lastDelete[id] = step
        case let .sync(device):
            try await expectOneSentenceIfFailed(sandbox.run(on: Self.profiles[device], ["sync"]), planned)
        case let .offline(device, isOn):
            try await sandbox.succeed(on: Self.profiles[device], ["remote", "offline", isOn ? "on" : "off"])
        case let .failNextSend(device):
            try await sandbox.succeed(on: Self.profiles[device], ["remote", "fault", "script", "networkFailure", "--operation", "modify"])
        case let .randomFaults(device):
            try await sandbox.succeed(on: Self.profiles[device], ["remote", "fault", "add", "networkFailure", "--rate", "0.25"])
        case let .overwrite(device):
            let result = try await sandbox.run(on: Self.profiles[device], ["sync", "--overwrite-remote", "--yes"])
            try await expectOneSentenceIfFailed(result, planned)
            if result.status == 0 {
                for idea in try await ideas(on: device) { lastWrite[idea.idString] = step }
            }
        case let .skewedEdit(device, pick, title, days):
            guard let id = try await idea(pick, on: device) else { return }
            let skew = ["IDEABOX_CLOCK_OFFSET_MS": String(Int64(days) * 86_400_000)]
            try await sandbox.succeed(on: Self.profiles[device], ["edit", id, "--title", title], environment: skew)
            try await expectOneSentenceIfFailed(sandbox.run(on: Self.profiles[device], ["sync"], environment: skew), planned)
            noteWrite(id, [title])
            skewed.insert(id)
        case let .exportImport(from, to):
            let file = sandbox.directory.appendingPathComponent("walk-\(step).json").path
            try await sandbox.succeed(on: Self.profiles[from], ["export", "--output", file])
            try await sandbox.succeed(on: Self.profiles[to], ["import", file])
        case let .apartEdits(first, second, pick, title, text):
            try await apartEdits(first, second, pick: pick, title: title, description: text)
        case .join:
            guard !hasJoined else { return }
            hasJoined = true
            try await startServer()
            try await sandbox.succeed(on: "C", try signIn + ["--merge"])
            if isEncrypted {
                try await heal(2)
                try await unlock(2)
            }
        case let .restore(device, pick):
            try await restore(on: device, pick: pick)
        case let .latency(device, milliseconds):
            try await sandbox.succeed(on: Self.profiles[device], ["remote", "latency", String(milliseconds)])
        case let .libraryWrite(device, file, text):
            let name = Self.libraryFiles[file]
            let url = library(of: device).appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            libraryWritten[name, default: []].insert(text)
            try await expectOneSentenceIfFailed(sandbox.run(on: Self.profiles[device], ["library", "sync"]), planned)
        case let .encryption(device, isOn):
            try await turnEncryption(isOn, on: device)
        case .serverKilled:
            guard let server, !isServerDown else { return }
            isServerDown = true
            try await server.stop(SIGKILL)
        case .serverStarted:
            try await startServer()
        }
    }

    /// `serve` started again if it was killed.
    private mutating func startServer() async throws {
        guard let server, isServerDown else { return }
        try await server.start()
        isServerDown = false
    }

    /// A device in the walk's account with its network back and no faults waiting.
    private func heal(_ device: Int) async throws {
        try await sandbox.succeed(on: Self.profiles[device], ["remote", "offline", "off"])
        try await sandbox.succeed(on: Self.profiles[device], ["remote", "fault", "clear"])
    }

    /// The devices in the walk's account: C once it joined.
    private var joinedDevices: [Int] { hasJoined ? [0, 1, 2] : [0, 1] }

    /// Encryption turned on (or off) on `device`, every other device in the account unlocking
    /// (or letting go of the key) at once, as their people would when asked.
    private mutating func turnEncryption(_ isOn: Bool, on device: Int) async throws {
        guard joinedDevices.contains(device), isOn != isEncrypted else { return }
        try await startServer()
        for each in joinedDevices { try await heal(each) }
        let profile = Self.profiles[device]
        let passphrase = Self.passphrase + "\n"
        if isOn {
            try await succeed(on: profile, ["account", "encryption", "enable"], input: passphrase + passphrase)
        } else {
            try await succeed(on: profile, ["account", "encryption", "disable"], input: passphrase)
        }
        isEncrypted = isOn
        for other in joinedDevices where other != device {
            if isOn {
                try await unlock(other)
            } else {
                try await succeed(on: Self.profiles[other], ["account", "encryption", "disable"], input: "")
            }
        }
    }

    private func unlock(_ device: Int) async throws {
        try await succeed(on: Self.profiles[device], ["account", "unlock"], input: Self.passphrase + "\n")
    }

    /// `ideabox arguments…` on `profile` with `input` and a fast passphrase hash, which must work.
    private func succeed(on profile: String, _ arguments: [String], input: String) async throws {
        let result = try await sandbox.run(
            arguments + ["--profile", profile], environment: ["IDEABOX_TEST_SCRYPT": "fast"], input: Data(input.utf8))
        guard result.status == 0 else {
            throw IdeaBoxProcessError(description: "step \(step): ideabox \(arguments.joined(separator: " ")) on \(profile): \(result)")
        }
    }

    /// An older version of an idea some device added, made current on `device` if it knows one.
    private mutating func restore(on device: Int, pick: Int) async throws {
        guard let id = added.sorted().element(pick) else { return }
        let profile = Self.profiles[device]
        let history = try await sandbox.run(on: profile, ["history", id, "--json"])
        guard history.status == 0, let versions = try? JSONDecoder().decode([Version].self, from: Data(history.stdout.utf8)),
              let version = versions.dropFirst().compactMap(\.version).element(pick)
        else { return }
        try await sandbox.succeed(on: profile, ["restore", id, String(version)])
        noteWrite(id, [])
    }

    private func library(of device: Int) -> URL {
        sandbox.dataRoot.appendingPathComponent("profiles/\(Self.profiles[device])/RawLibrary")
    }

    /// Two devices in step, then one edits the title and the other the description, each
    /// without the other's; after both sync, both edits are on both.
    private mutating func apartEdits(_ first: Int, _ second: Int, pick: Int, title: String, description: String) async throws {
        let pair = [first, second]
        guard hasJoined || !pair.contains(2) else { return }
        try await startServer()
        for device in pair { try await heal(device) }
        for device in pair + [first] { try await sandbox.succeed(on: Self.profiles[device], ["sync"]) }
        let shared = Set(try await ideas(on: second).map(\.idString))
        guard let id = try await ideas(on: first).filter({ shared.contains($0.idString) }).element(pick)?.idString else { return }
        try await sandbox.succeed(on: Self.profiles[first], ["edit", id, "--title", title])
        try await sandbox.succeed(on: Self.profiles[second], ["edit", id, "--description", description])
        noteWrite(id, [title, description])
        for device in pair + [first] { try await sandbox.succeed(on: Self.profiles[device], ["sync"]) }
        for device in pair {
            let held = try await sandbox.ideas(on: Self.profiles[device]).first { $0.idString == id }
            if held?.title != title || held?.description != description {
                runViolations.append("step \(step): apart edits of \(id.prefix(8)) on \(Self.profiles[device]): \(String(describing: held))")
            }
        }
    }

    /// Every fault off, `serve` up, C joined, and every device's ideas and library synced until
    /// a round moves nothing.
    private mutating func settle() async throws {
        if !hasJoined { try await perform(.join) }
        try await startServer()
        for device in 0..<3 {
            try await heal(device)
            try await sandbox.succeed(on: Self.profiles[device], ["remote", "latency", "0"])
        }
        for _ in 0..<4 {
            var moved = false
            for profile in Self.profiles {
                let outcome = try await sandbox.sync(profile)
                let library = try await sandbox.succeed(on: profile, ["library", "sync"])
                moved = moved || outcome.sent > 0 || outcome.received > 0 || outcome.pending > 0
                    || library.firstMatch(of: /[1-9]/) != nil
            }
            if !moved { return }
        }
        runViolations.append("the devices never went quiet")
    }

    /// The invariants the walk broke, each a line.
    func violations() async throws -> [String] {
        var found = runViolations
        // By id: ideas made in one millisecond (brought back to one time) list in any order.
        var states: [[Idea]] = []
        for profile in Self.profiles { states.append(try await sandbox.syncedState(of: profile).sorted { $0.idString < $1.idString }) }
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
        found += try await libraryViolations()
        let current = Dictionary(uniqueKeysWithValues: states[0].map { ($0.idString, $0) })
        for (id, values) in written {
            guard let idea = current[id] else { continue }
            var kept: Set<String> = [idea.title, idea.description]
            for profile in Self.profiles {
                let result = try await sandbox.run(on: profile, ["history", id, "--json"])
                guard result.status == 0, let versions = try? JSONDecoder().decode([Version].self, from: Data(result.stdout.utf8)) else { continue }
                for version in versions { kept.formUnion([version.title, version.description]) }
            }
            for value in values.subtracting(kept) where !value.isEmpty {
                found.append("\(id.prefix(8)): \"\(value)\" is nowhere: not current, not in any history")
            }
        }
        return found
    }

    /// Every device holds the same library files, each with a text some device wrote to it,
    /// and every file written is there.
    private func libraryViolations() async throws -> [String] {
        var found: [String] = []
        var held: [[String: String]] = []
        for device in 0..<3 { held.append(try await libraryContents(of: device)) }
        for (device, files) in held.enumerated().dropFirst() where files != held[0] {
            found.append("\(Self.profiles[device])'s library differs from A's: \(files) / \(held[0])")
        }
        // A conflict keeps the losing side beside the file, under a name of its own.
        let everyText = libraryWritten.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        for (name, text) in held[0] where libraryWritten[name]?.contains(text) != true
            && (Self.libraryFiles.contains(name) || !everyText.contains(text)) {
            found.append("library file \(name) holds \"\(text)\", which nobody wrote to it")
        }
        for name in libraryWritten.keys where held[0][name] == nil {
            found.append("library file \(name) is gone")
        }
        return found
    }

    /// Every file of `device`'s library in the synced layout (none hidden), by path, as text.
    private func libraryContents(of device: Int) async throws -> [String: String] {
        let folder = library(of: device)
        let fileManager = FileManager.default
        var names = ["Favorite.json"]
        for subfolder in ["Items", "FavoriteItems"] {
            let listed = (try? fileManager.contentsOfDirectory(atPath: folder.appendingPathComponent(subfolder).path)) ?? []
            names += listed.filter { !$0.hasPrefix(".") }.map { "\(subfolder)/\($0)" }
        }
        var files: [String: String] = [:]
        for name in names {
            if let data = fileManager.contents(atPath: folder.appendingPathComponent(name).path) {
                files[name] = String(decoding: data, as: UTF8.self)
            }
        }
        return files
    }

    /// One version of `history --json`: its values and number (nil for the current one).
    private struct Version: Decodable {
        var title: String
        var description: String
        var version: Int?
    }

    private mutating func noteWrite(_ id: String, _ values: [String]) {
        written[id, default: []].formUnion(values)
        lastWrite[id] = step
    }

    /// The id of idea number `pick` (modulo how many there are) on `device`, if it has any.
    private func idea(_ pick: Int, on device: Int) async throws -> String? {
        try await ideas(on: device).element(pick)?.idString
    }

    private func ideas(on device: Int) async throws -> [Idea] {
        try await sandbox.ideas(["--all", "--profile", Self.profiles[device]])
    }

    /// A sync that could not work (offline, a scripted failure) says one sentence and exits 1.
    private mutating func expectOneSentenceIfFailed(_ result: CommandResult, _ planned: Step) async throws {
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
