import IdeaBoxFoundation

/// Where a version that arrives from the future stands in the sync order: no later than when
/// the remote received it. A device whose clock runs ahead stamps its edits ahead; adopted as
/// they are, those stamps would carry every device that read them into the future (each
/// stamps after what it saw) and beat every real edit until true time caught up.
///
/// A version none of whose times is more than `tolerance` after the remote's receipt is left
/// as it is (clocks a little apart, and a request's time on the way, are normal). Otherwise
/// every one of its times, `createdAt` and `updatedAt` included, becomes at most the receipt's:
/// the same on every device that reads that version, and on the device that sent it once the
/// remote's answer says when it arrived, so every copy of it agrees.
public enum ArrivalRule {
    /// How far ahead of the remote's receipt a time may be before it is brought back to it.
    public static let tolerance: Int64 = 1_000

    /// Whether a version whose latest time is `latest` arrived at `receivedAt` from the future.
    public static func isFromTheFuture(latest: Timestamp, receivedAt: Timestamp) -> Bool {
        latest.milliseconds > receivedAt.milliseconds + tolerance
    }

    /// `idea` and its `stamps` as ordered once the remote received them at `receivedAt`.
    public static func arrived(_ idea: Idea, _ stamps: FieldStamps, receivedAt: Timestamp) -> (Idea, FieldStamps) {
        let latest = max(idea.updatedAt, idea.createdAt, stamps.latest.timestamp)
        guard isFromTheFuture(latest: latest, receivedAt: receivedAt) else { return (idea, stamps) }
        var idea = idea
        idea.createdAt = min(idea.createdAt, receivedAt)
        idea.updatedAt = min(idea.updatedAt, receivedAt)
        var capped = stamps
        for field in IdeaField.allCases {
            capped[field].timestamp = min(stamps[field].timestamp, receivedAt)
        }
        return (idea, capped)
    }

    /// A delete made at `order`, as ordered once the remote received it at `receivedAt`.
    public static func arrived(_ order: SyncOrder, receivedAt: Timestamp) -> SyncOrder {
        guard isFromTheFuture(latest: order.timestamp, receivedAt: receivedAt) else { return order }
        return SyncOrder(timestamp: receivedAt, deviceId: order.deviceId)
    }
}
