import IdeaBoxFoundation
import IdeaModel

/// How far this device's clock is from the remote's, as the remote's last answer showed:
/// what makes this device's stamps follow the remote's clock when its own is wrong, so that
/// edits made on two devices order as they were made, whatever either clock says.
///
/// An estimate holds while this device's clock runs on from where it was measured: one that
/// went back (the clock was set right), or a week old, is not used, and the next answer
/// measures again.
public struct RemoteClockEstimate: Sendable, Equatable {
    /// The remote's time less this device's, in milliseconds.
    public var offset: Int64
    /// This device's time when it was measured.
    public var measuredAt: Timestamp

    /// How long an estimate is used without another answer.
    static let lifetime: Int64 = 7 * 24 * 3600 * 1000
    /// How far off a clock must be for `status` and the app to say so.
    public static let noticeable: Int64 = 60_000

    /// An estimate.
    public init(offset: Int64, measuredAt: Timestamp) {
        self.offset = offset
        self.measuredAt = measuredAt
    }

    /// The estimate two stored values make, if both are there.
    init?(offset: Int64?, measuredAt: Int64?) {
        guard let offset, let measuredAt else { return nil }
        self.init(offset: offset, measuredAt: Timestamp(milliseconds: measuredAt))
    }

    /// Whether the estimate still holds at this device's `local` time.
    public func holds(at local: Timestamp) -> Bool {
        local >= measuredAt && local.milliseconds - measuredAt.milliseconds <= Self.lifetime
    }

    /// The remote's time at this device's `local` time: `local` moved by the offset where the
    /// estimate holds and the clocks are further apart than `ArrivalRule` lets pass.
    public func remoteTime(at local: Timestamp) -> Timestamp {
        guard holds(at: local), abs(offset) > ArrivalRule.tolerance else { return local }
        return local.adding(milliseconds: offset)
    }

    /// The remote's time at `local` by `estimate`, or `local` without one.
    static func remoteTime(at local: Timestamp, by estimate: RemoteClockEstimate?) -> Timestamp {
        estimate?.remoteTime(at: local) ?? local
    }
}
