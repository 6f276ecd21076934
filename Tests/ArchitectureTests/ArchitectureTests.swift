import Foundation
import Testing

/// The layers of docs/ARCHITECTURE.md, enforced: `Package.swift`'s dependency graph and
/// every `import` line of `Sources/` are read, and a target that reaches what its layer
/// may not is a failing test, not a review comment.
@Suite struct ArchitectureTests {
    /// The package's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What the remote is made of: it knows nothing of ideas, the device's database, its
    /// sync or its screens.
    static let remote: Set = [
        "CloudKitModel", "CloudWebServices", "CloudHTTPClient", "ServerStore", "SQLiteServerStore", "PostgresServerStore",
        "EmbeddedRemote", "CloudServer",
    ]
    /// The device's own layers, bottom up.
    static let device: Set = [
        "IdeaStore", "IdeaSync", "IdeaBoxViewModels", "IdeaBoxTUI", "IdeaBoxCommandLine", "LibrarySync", "AccountEncryption",
    ]

    /// Targets and what each may never reach, directly or through another target.
    static let forbidden: [String: Set<String>] = {
        var rules: [String: Set<String>] = [:]
        // The remote stands on the foundation alone: the idea model is a compile error there.
        for target in remote { rules[target] = device.union(["IdeaModel"]) }
        rules["IdeaBoxFoundation"] = remote.union(device).union(["IdeaModel"])
        rules["IdeaModel"] = remote.union(device)
        // The store knows no sync, no remote and no screen.
        rules["IdeaStore"] = remote.union(["IdeaSync", "IdeaBoxViewModels", "IdeaBoxTUI", "IdeaBoxCommandLine", "LibrarySync"])
        // Sync talks to any remote through the model alone: no server, store or HTTP client,
        // and so no NIO in the app.
        rules["IdeaSync"] = remote.subtracting(["CloudKitModel"]).union(["IdeaBoxViewModels", "IdeaBoxTUI", "IdeaBoxCommandLine"])
        rules["IdeaBoxViewModels"] = remote.subtracting(["CloudKitModel"]).union(["IdeaBoxTUI", "IdeaBoxCommandLine"])
        rules["IdeaBoxTUI"] = remote.subtracting(["CloudKitModel"]).union(["IdeaBoxCommandLine"])
        // The config file is read above the screens: no remote, and no command line.
        rules["IdeaBoxConfig"] = remote.subtracting(["CloudKitModel"]).union(["IdeaBoxCommandLine", "LibrarySync"])
        rules["LibrarySync"] = remote.subtracting(["CloudKitModel"]).union(["IdeaStore", "IdeaSync", "IdeaBoxViewModels", "IdeaBoxTUI"])
        // Encryption seals generic records under the remote's model: it knows no idea, no
        // store, no sync, and links no NIO (the layers above wrap their remote in it).
        rules["AccountEncryption"] = remote.subtracting(["CloudKitModel"]).union(device.subtracting(["AccountEncryption"])).union(["IdeaModel"])
        return rules
    }()

    /// Modules a layer may not import even where the graph reaches them: the TUI knows no
    /// SQL (the store and GRDB are the view model's business).
    static let neverImported: [String: Set<String>] = ["IdeaBoxTUI": ["IdeaStore", "GRDB", "IdeaSync"]]

    @Test func noTargetReachesWhatItsLayerMayNot() throws {
        let graph = try Self.dependencies()
        #expect(graph.keys.count > 20, "read \(graph.keys.count) targets from Package.swift")
        #expect(Set(Self.forbidden.keys).isSubset(of: graph.keys), "a rule names a target Package.swift lacks")
        for (target, banned) in Self.forbidden {
            #expect(graph[target] != nil, "\(target) is not in Package.swift")
            let reached = Self.closure(of: target, in: graph)
            #expect(reached.isDisjoint(with: banned), "\(target) reaches \(reached.intersection(banned).sorted())")
        }
    }

    @Test func everyImportOfATargetIsADeclaredDependency() throws {
        let graph = try Self.dependencies()
        var checked = 0
        for (target, imports) in try Self.imports() {
            let declared = graph[target] ?? []
            for module in imports where graph[module] != nil && module != target {
                #expect(declared.contains(module), "\(target) imports \(module) without declaring it")
                checked += 1
            }
            for module in imports {
                #expect(!(Self.neverImported[target] ?? []).contains(module), "\(target) imports \(module)")
            }
        }
        #expect(checked > 50, "checked \(checked) imports")
    }

    // MARK: Reading the package

    /// Each target's declared dependencies on other targets (products left out).
    static func dependencies() throws -> [String: Set<String>] {
        // Products are other packages'; a target named with a condition is a target.
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
            .replacing(/\.product\([^)]*\)/, with: "")
            .replacing(/\.target\(name:\s*"([^"]+)",\s*condition:\s*\.when\([^)]*\)\)/) { "\"\($0.1)\"" }
        var graph: [String: Set<String>] = [:]
        let declaration = /\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/
        let starts = manifest.matches(of: declaration)
        for (index, match) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : manifest.endIndex
            let body = manifest[match.range.upperBound..<end]
            var dependencies: Set<String> = []
            if let list = body.firstMatch(of: /dependencies:\s*\[([^\]]*)\]/) {
                for name in list.1.matches(of: /"([^"]+)"/) { dependencies.insert(String(name.1)) }
            }
            graph[String(match.1)] = dependencies
        }
        return graph
    }

    /// Every target under `Sources/` and the modules its files import.
    static func imports() throws -> [String: Set<String>] {
        let sources = root.appendingPathComponent("Sources")
        var result: [String: Set<String>] = [:]
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            guard let files = FileManager.default.enumerator(atPath: sources.appendingPathComponent(target).path) else { continue }
            var modules: Set<String> = []
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: sources.appendingPathComponent(target).appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("import ") {
                    var words = line.split(separator: " ")
                    while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal"].contains(first) {
                        words.removeFirst()
                    }
                    if words.count == 2, words[0] == "import" { modules.insert(String(words[1])) }
                }
            }
            result[target] = modules
        }
        return result
    }

    /// The targets `target` reaches through the graph, itself left out.
    static func closure(of target: String, in graph: [String: Set<String>]) -> Set<String> {
        var reached: Set<String> = []
        var pending = Array(graph[target] ?? [])
        while let next = pending.popLast() {
            guard reached.insert(next).inserted else { continue }
            pending += graph[next] ?? []
        }
        return reached
    }
}
