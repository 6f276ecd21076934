import Foundation

/// The parsers this binary fuzzes, one per run, named by `IDEABOX_FUZZ_TARGET`.
enum FuzzTarget: String, CaseIterable {
    /// `JSONValue(parsing:)`, and its writing read back.
    case json
    /// `WebServicesPath.parse`, on a request target with its query string.
    case path
    /// A `records/modify` body through the server's operations.
    case modify
    /// A `records/query` body through the server's operations.
    case query
    /// A `records/changes`, `changes/zone` and `changes/database` body through the server's operations.
    case changes
    /// A whole request through `serve`'s router: middleware, route and written answer.
    case router
    /// Sync tokens, change tokens and asset tickets, read from hostile text.
    case token
    /// A server's answer as a client reads it: errors, records, zones, pages.
    case answer
    /// Sealed payloads, key envelopes, keyrings and sealed records and assets.
    case sealed
    /// An `ideabox import` file.
    case `import`
    /// The config file.
    case config
    /// Terminal input through the key decoder.
    case keys

    /// The target `IDEABOX_FUZZ_TARGET` names, read once; nil if it names none.
    static let chosen: FuzzTarget? = ProcessInfo.processInfo.environment["IDEABOX_FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:))

    /// Feeds `bytes` to the target; a broken invariant stops the process (`FuzzFailure`).
    func run(_ bytes: [UInt8]) {
        switch self {
        case .json: JSONFuzz.run(bytes)
        case .path: PathFuzz.run(bytes)
        case .modify: ServerFuzz.modify(bytes)
        case .query: ServerFuzz.query(bytes)
        case .changes: ServerFuzz.changes(bytes)
        case .router: RouterFuzz.run(bytes)
        case .token: TokenFuzz.run(bytes)
        case .answer: AnswerFuzz.run(bytes)
        case .sealed: SealedFuzz.run(bytes)
        case .import: ImportFuzz.run(bytes)
        case .config: ConfigFuzz.run(bytes)
        case .keys: KeysFuzz.run(bytes)
        }
    }
}

/// Stops the process on a broken invariant, so that libFuzzer keeps the input as a crash.
func fuzzFailure(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("ideabox-fuzz: \(message)\n".utf8))
    fatalError(message, file: file, line: line)
}

/// The first byte of an input picks one of `count` modes; the rest is the input proper.
func splitMode(of bytes: [UInt8], count: Int) -> (mode: Int, rest: [UInt8]) {
    guard let first = bytes.first else { return (0, []) }
    return (Int(first) % count, Array(bytes.dropFirst()))
}
