import CloudServer
import CloudWebServices

/// `WebServicesPath.parse` on a request target (path and query string), as the server's
/// middleware hands it the path: whatever it reads must read the same when spelled again.
enum PathFuzz {
    /// Parses the whole target and its path, and checks the query's tokens.
    static func run(_ bytes: [UInt8]) {
        let target = String(decoding: bytes, as: UTF8.self)
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        for candidate in [target, path] {
            guard let parsed = WebServicesPath.parse(candidate) else { continue }
            guard !parsed.container.isEmpty, !parsed.container.contains("/"), !parsed.environment.contains("/"),
                  !parsed.database.contains("/")
            else { fuzzFailure("parse(\(candidate.debugDescription)) read \(parsed)") }
            let spelled = "/database/1/\(parsed.container)/\(parsed.environment)/\(parsed.database)/\(parsed.operation.rawValue)"
            guard WebServicesPath.parse(spelled) == parsed else {
                fuzzFailure("parse(\(candidate.debugDescription)) read \(parsed), which spelled \(spelled.debugDescription) reads otherwise")
            }
            _ = WebServicesPath.isValidContainer(parsed.container)
        }
        if let query = target.split(separator: "?", maxSplits: 1).dropFirst().first {
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                _ = WebServicesPath.isValidAPIToken(parts[1])
                _ = AccessToken.isValidAccountName(String(parts[1]))
            }
        }
    }
}
