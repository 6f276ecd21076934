import IdeaBoxFoundation

/// When the tests' world begins: every fixture's hand-moved clock, scheduler and stamped file
/// starts at this one instant, so that a time one suite prints is the time another starts at.
public enum TestTime {
    /// 2026-11-20T08:15:30.000Z.
    public static let start = Timestamp(milliseconds: 1_795_162_530_000)
}
