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
        "CloudKitModel", "CloudWebServices", "CloudHTTPClient", "ServerStore", "SQLiteRecordStore", "PostgresRecordStore",
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

    // MARK: Pages and tests that hold

    @Test func docsArchitectureNamesEveryTargetOfThePackage() throws {
        let targets = try Self.targets()
        #expect(targets.count > 40, "read \(targets.count) targets from Package.swift")
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let missing = targets.filter { !Self.names(page, $0) }
        #expect(missing.isEmpty, "docs/ARCHITECTURE.md names no \(missing.sorted())")
    }

    @Test func everyMarkdownFileASourceOrTestNamesIsInTheRepository() throws {
        let (paths, names) = try Self.markdownFiles()
        #expect(paths.contains("docs/ARCHITECTURE.md"), "found \(paths.sorted())")
        var cited = 0
        for (file, text) in try Self.swiftFiles(under: ["Sources", "Tests", "Plugins"]) {
            for match in text.matches(of: /[A-Za-z0-9_.\/-]*[A-Za-z0-9_-]\.md(?![A-Za-z0-9_])/) {
                let name = String(match.0).trimmingPrefix(/(\.{1,2}\/)+/)
                let found = name.contains("/") ? paths.contains(String(name)) : names.contains(String(name))
                #expect(found, "\(file) cites \(name), which is not in the repository")
                cited += 1
            }
        }
        #expect(cited > 3, "found \(cited) citations")
    }

    /// A file under `Tests/` has a test, or is a support file: one whose name does not end
    /// in `Tests.swift` and that declares something other files use (a type, an extension, a
    /// function, a value). A file of imports and comments alone fails, as does a `…Tests.swift`
    /// without a `@Test`.
    @Test func everyFileUnderTestsHasATestOrDeclaresSupport() throws {
        let files = try Self.swiftFiles(under: ["Tests"])
        #expect(files.count > 100, "read \(files.count) files")
        let declaration = /^\s*(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|final|static|nonisolated|indirect)\s+)*(?:struct|class|enum|actor|protocol|extension|func|let|var|typealias)\s/.anchorsMatchLineEndings()
        for (file, text) in files {
            let hasTest = text.contains("@Test")
            if file.hasSuffix("Tests.swift") {
                #expect(hasTest, "\(file) declares no @Test")
            } else {
                #expect(hasTest || text.contains(declaration), "\(file) declares nothing: no @Test, no type, no function")
            }
        }
    }

    /// A test that returns when PostgreSQL is missing passes without testing anything, and
    /// `IDEABOX_REQUIRE_POSTGRES=1` cannot catch it: a `guard` or `if` that names PostgreSQL
    /// must not leave by `return`. (Such a test says `.enabled(if:)`, or runs PostgreSQL only
    /// among the arguments the configured database makes.)
    @Test func noTestSkipsItselfInItsBodyForAMissingPostgreSQL() throws {
        var found: [String] = []
        for (file, text) in try Self.swiftFiles(under: ["Tests"]) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                guard line.contains(/^\s*(?:guard|if)\b/), line.lowercased().contains("postgres") else { continue }
                // The statement, and its block's first line where the block opens at the line's end.
                let next = line.hasSuffix("{") && index + 1 < lines.count ? lines[index + 1] : ""
                if "\(line) \(next)".contains(/\{\s*return\b/) { found.append("\(file):\(index + 1)") }
            }
        }
        #expect(found.isEmpty, "tests that return early without PostgreSQL: \(found)")
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

    /// Every target, plugin and test target `Package.swift` declares, read from its text
    /// (no `swift package dump-package`: that resolves the dependencies, which takes the
    /// network on a fresh clone).
    static func targets() throws -> Set<String> {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = /\.(?:target|executableTarget|testTarget|systemLibrary|binaryTarget|macro|plugin)\(\s*name:\s*"([^"]+)"(?!\s*,\s*condition:)/
        return Set(manifest.matches(of: declaration).map { String($0.1) })
    }

    /// Whether `text` names `target` as a word of its own (not inside a longer name).
    static func names(_ text: String, _ target: String) -> Bool {
        var rest = text[...]
        while let range = rest.firstRange(of: target) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let isNamePart = { (character: Character?) in character.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } ?? false }
            if !isNamePart(before), !isNamePart(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }

    /// The Markdown files of the repository (hidden folders and the build left out): their
    /// paths from the root, and their names.
    static func markdownFiles() throws -> (paths: Set<String>, names: Set<String>) {
        var paths: Set<String> = []
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == ".build" { walker?.skipDescendants() }
            guard url.pathExtension == "md" else { continue }
            paths.insert(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
        }
        return (paths, Set(paths.map { String($0.split(separator: "/").last!) }))
    }

    /// Every Swift file under `folders`, as its path from the root and its text.
    static func swiftFiles(under folders: [String]) throws -> [(path: String, text: String)] {
        var files: [(path: String, text: String)] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let file as String in walker where file.hasSuffix(".swift") {
                files.append(("\(folder)/\(file)", try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)))
            }
        }
        return files.sorted { $0.path < $1.path }
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
