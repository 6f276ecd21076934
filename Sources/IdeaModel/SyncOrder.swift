import IdeaBoxFoundation
/// The one total order of changes that every device agrees on: `updatedAt` in
/// milliseconds, then `deviceId`. Never "prefer myself".
public struct SyncOrder: Comparable, Hashable, Sendable {
    /// When the change was made.
    public var timestamp: Timestamp
    /// Who made it; breaks ties.
    public var deviceId: String

    /// The position of a change made at `timestamp` by `deviceId`.
    public init(timestamp: Timestamp, deviceId: String) {
        self.timestamp = timestamp
        self.deviceId = deviceId
    }

    /// The position of an idea's last change.
    public init(_ idea: Idea) {
        self.init(timestamp: idea.updatedAt, deviceId: idea.deviceId)
    }

    /// Earlier in the order: an earlier time, or the same time and a smaller device id.
    public static func < (lhs: SyncOrder, rhs: SyncOrder) -> Bool {
        (lhs.timestamp, lhs.deviceId) < (rhs.timestamp, rhs.deviceId)
    }
}
