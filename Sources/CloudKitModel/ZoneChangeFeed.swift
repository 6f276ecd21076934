import Foundation

/// Being told when zones change instead of asking: CloudKit's zone subscriptions and the
/// long poll behind them (`ideabox serve`), or the embedded remote's wake-up between the
/// processes of one data root.
///
/// Asynchronous and throwing (only `CloudError`), like `CloudDatabase`: a device's listener
/// awaits it in a task of its own, holding no thread while a long poll is out.
public protocol ZoneChangeFeed: Sendable {
    /// Subscribes to `zones` (again, harmlessly, if already subscribed) and says where the
    /// device stands now: every change after the cursor is announced by `waitForChanges`.
    func startWatching(_ zones: [RecordZoneID]) async throws -> ChangeCursor

    /// Waits until a watched zone changes after `cursor` (at once if one already has), or
    /// about `seconds` pass (nil). Answers the zones that changed, as far as the feed can
    /// tell, and the cursor to wait after next; no zone if the change was this device's own
    /// upload alone, which it need not fetch.
    func waitForChanges(after cursor: ChangeCursor, seconds: Int) async throws -> ZoneChangeNotice?
}

/// Where a listener stands in the feed: opaque, handed back to `waitForChanges`.
public struct ChangeCursor: Hashable, Sendable {
    /// The feed's own spelling of the position.
    public var value: String

    /// The cursor a feed spells `value`.
    public init(_ value: String) {
        self.value = value
    }
}

/// What a woken listener learns: which zones changed, and where it stands now.
public struct ZoneChangeNotice: Hashable, Sendable {
    /// The zones that changed; a sync of these brings the device up to date. Empty when
    /// only the cursor moved. (No feed tells a device of its own upload: the embedded one
    /// skips its lines, the server wakes no poll of the device that saved.)
    public var zones: [RecordZoneID]
    /// The cursor to wait after next.
    public var cursor: ChangeCursor

    /// A notice of `zones`, after which the listener waits after `cursor`.
    public init(zones: [RecordZoneID], cursor: ChangeCursor) {
        self.zones = zones
        self.cursor = cursor
    }
}
