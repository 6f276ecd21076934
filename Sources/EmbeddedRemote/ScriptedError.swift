import CloudKitModel

/// One error waiting in a device's script: the next matching request throws it.
public struct ScriptedError: Hashable, Codable, Sendable {
    /// The error to throw.
    public var error: CloudError
    /// The only kind of request that consumes it, or nil for any.
    public var operation: CloudOperation?
    /// Whether the request is carried out first and only its answer is lost, as when the
    /// network fails on the way back: the client sees the error, the server has the change,
    /// and a retry sends the same change again.
    public var failsAfterApplying: Bool

    /// A scripted error for the next request (of kind `operation`, or any), thrown instead
    /// of carrying it out, or after carrying it out if `failsAfterApplying`.
    public init(_ error: CloudError, operation: CloudOperation? = nil, failsAfterApplying: Bool = false) {
        self.error = error
        self.operation = operation
        self.failsAfterApplying = failsAfterApplying
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        error = try container.decode(CloudError.self, forKey: .error)
        operation = try container.decodeIfPresent(CloudOperation.self, forKey: .operation)
        failsAfterApplying = try container.decodeIfPresent(Bool.self, forKey: .failsAfterApplying) ?? false
    }
}
