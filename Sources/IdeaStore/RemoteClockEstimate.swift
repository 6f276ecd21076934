import IdeaBoxFoundation
import IdeaModel

/// How far this device's clock is from the remote's, as the remote's last answer showed:
/// what makes this device's stamps follow the remote's clock when its own is wrong, so that
/// edits made on two devices order as they were made, whatever either clock says.
///
/// An estimate holds while this device's wall clock runs on as the machine's boot clock does
/// since it was measured: a clock set right (or a process told its clock is off) drops it, and
/// so does a week without another answer, or a restart of the machine; the next answer
/// measures again. Without a boot clock (a test's fixed clock), it holds while the wall clock
/// does not go back.
public struct RemoteClockEstimate: Sendable, Equatable {
    /// The remote's time less this device's, in milliseconds.
    public var offset: Int64
    /// This device's time when it was measured.
    public var measuredAt: Timestamp
    /// The boot clock then, if this device's clock has one.
    public var measuredAtElapsed: Int64?

    /// How long an estimate is used without another answer.
    static let lifetime: Int64 = 7 * 24 * 3600 * 1000
    /// How far off a clock must be for `status` and the app to say so.
    public static let noticeable: Int64 = 60_000

    /// An estimate.
    public init(offset: Int64, measuredAt: Timestamp, measuredAtElapsed: Int64? = nil) {
        self.offset = offset
        self.measuredAt = measuredAt
        self.measuredAtElapsed = measuredAtElapsed
    }

    /// The estimate the stored values make, if there is one.
    init?(offset: Int64?, measuredAt: Int64?, measuredAtElapsed: Int64?) {
        guard let offset, let measuredAt else { return nil }
        self.init(offset: offset, measuredAt: Timestamp(milliseconds: measuredAt), measuredAtElapsed: measuredAtElapsed)
    }

    /// Whether the estimate still holds for `clock` now.
    public func holds(on clock: WallClock) -> Bool {
        let wall = clock.now().milliseconds - measuredAt.milliseconds
        guard let then = measuredAtElapsed, let now = clock.elapsed() else { return wall >= 0 && wall <= Self.lifetime }
        let steady = now - then
        return steady >= 0 && steady <= Self.lifetime && abs(wall - steady) <= ArrivalRule.tolerance
    }

    /// The remote's time now by `clock`: its time moved by the offset where the estimate
    /// holds and the clocks are further apart than `ArrivalRule` lets pass.
    public func remoteTime(on clock: WallClock) -> Timestamp {
        let local = clock.now()
        guard abs(offset) > ArrivalRule.tolerance, holds(on: clock) else { return local }
        return local.adding(milliseconds: offset)
    }

    /// The remote's time now by `clock` and `estimate`, or `clock`'s without one.
    static func remoteTime(on clock: WallClock, by estimate: RemoteClockEstimate?) -> Timestamp {
        estimate?.remoteTime(on: clock) ?? clock.now()
    }
}
