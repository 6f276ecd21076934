/// One error waiting in a device's script: the next matching request throws it.
public struct ScriptedError: Hashable, Codable, Sendable {
    /// The error to throw.
    public var error: CloudError
    /// The only kind of request that consumes it, or nil for any.
    public var operation: CloudOperation?

    /// A scripted error for the next request (of kind `operation`, or any).
    public init(_ error: CloudError, operation: CloudOperation? = nil) {
        self.error = error
        self.operation = operation
    }
}
