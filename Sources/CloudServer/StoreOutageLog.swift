import Logging
import ServerStore

/// What `serve` says when its store stops answering and when it answers again: one line
/// each (`store not answering cause=…`, `store answering again down_seconds=…`), and in
/// `/metrics` the outages counted and whether the store is up now.
enum StoreOutageLog {
    /// Logs each change of `availability` on `logger` and counts it in `metrics`.
    static func follow(_ availability: StoreAvailability, metrics: ServerMetrics, logger: Logger) {
        metrics.storeChanged(up: !availability.isDown, outageBegan: false)
        availability.observe { change in
            let (level, message, metadata) = line(for: change)
            logger.log(level: level, "\(message)", metadata: metadata)
            switch change {
            case .wentDown: metrics.storeChanged(up: false, outageBegan: true)
            case .cameBack: metrics.storeChanged(up: true, outageBegan: false)
            }
        }
    }

    /// The line `change` is logged as: its level, message and fields.
    static func line(for change: StoreAvailability.Change) -> (Logger.Level, String, Logger.Metadata) {
        switch change {
        case let .wentDown(cause):
            (.error, "store not answering", [
                "cause": .string(cause),
                "answer": .string("503 TRY_AGAIN_LATER retryAfter=\(Int(StoreAvailability.retryAfter)) until it is back"),
            ])
        case let .cameBack(after):
            (.notice, "store answering again", ["down_seconds": .string(seconds(after))])
        }
    }

    /// `after` in seconds with one decimal: `85.2`.
    static func seconds(_ duration: Duration) -> String {
        let tenths = Int64((duration / .milliseconds(100)).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
