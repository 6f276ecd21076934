import Foundation

/// The environment a command runs in, read one variable at a time.
///
/// The process's own variables are read with `getenv` as they are asked for. A dictionary of
/// them (`ProcessInfo.processInfo.environment`) is the first `[String: String]` an `ideabox add`
/// would make, and a new process pays for the first one with a runtime search of every
/// protocol conformance in the binary (`String: Hashable`), about 2% of the command
/// (BENCHMARKS.md, "Everyday commands against taskwarrior").
public struct EnvironmentVariables: Sendable {
    /// The variables when they are given rather than the process's own.
    private let given: [String: String]?

    /// The process's own variables.
    public static let process = EnvironmentVariables(given: nil)

    /// Exactly `variables`, whatever the process's are.
    public init(_ variables: [String: String]) {
        given = variables
    }

    private init(given: [String: String]?) {
        self.given = given
    }

    /// The value of the variable `name`, or nil if it is not set.
    public subscript(name: String) -> String? {
        guard let given else { return getenv(name).map { String(cString: $0) } }
        return given[name]
    }

    /// Every variable, for what takes them all at once (the config file, the terminal).
    public var all: [String: String] {
        given ?? ProcessInfo.processInfo.environment
    }
}
