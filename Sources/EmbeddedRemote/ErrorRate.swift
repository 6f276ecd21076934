import CloudKitModel

/// A fault that fails a share of a device's requests at random.
public struct ErrorRate: Hashable, Codable, Sendable {
    /// The chance, from 0 to 1, that a request fails.
    public var probability: Double
    /// The error a failing request throws.
    public var error: CloudError
    /// The only kind of request this applies to, or nil for every kind.
    public var operation: CloudOperation?

    /// Fails requests (of kind `operation`, or all) with `error` with chance `probability`.
    public init(probability: Double, error: CloudError, operation: CloudOperation? = nil) {
        self.probability = probability
        self.error = error
        self.operation = operation
    }
}
