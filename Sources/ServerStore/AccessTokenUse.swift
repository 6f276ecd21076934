/// When a store notes that an access token was used: every request asks for its token's
/// account, so the last-used time (`serve account tokens` shows it) is written again only once
/// it is `resolution` old, not on every request.
public enum AccessTokenUse {
    /// How stale a token's last-used time may get before a request writes it again, in milliseconds.
    public static let resolution: Int64 = 60_000

    /// Whether a request at `now` writes the last-used time of a token last noted at `lastUsed`
    /// (nil if never), both in milliseconds.
    public static func isNoted(lastUsed: Int64?, now: Int64) -> Bool {
        lastUsed.map { now - $0 >= resolution } ?? true
    }
}
