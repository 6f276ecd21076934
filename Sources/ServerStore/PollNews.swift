/// Which changes a long poll counts (issue 61): a device that names itself
/// (`X-IdeaBox-Device`, ours) knows its own saves, so changes after its token that it wrote
/// itself are no news to it, and its poll is held; a change another device wrote, or one whose
/// save named no device, is. A poll of no device counts every change, as CloudKit's clients
/// expect. The stores record who wrote each change (the device its save named) and read who
/// wrote those after a token (`RecordZoneStore.changeWriters`); this decides.
public enum PollNews {
    /// The most writers a poll needs read to decide: of two different ones, one is not its own.
    public static let writersNeeded = 2

    /// Whether changes written by `writers` (each a device, nil for a save that named none)
    /// are news to a poll of `device` (nil for one that named none).
    public static func isNews(writers: [String?], to device: String?) -> Bool {
        guard let device else { return !writers.isEmpty }
        return writers.contains { $0 != device }
    }
}
