import CloudKitModel
import Foundation
import Logging
import PostgresNIO
import ServerStore

/// Zone subscriptions, and changes announced to every `serve` process over this database
/// through PostgreSQL's `LISTEN`/`NOTIFY` on the channel `ideabox_changes` (`changeChannel`).
extension PostgresRecordStore {
    public func subscriptions(account: String) async throws -> [ZoneSubscription] {
        try await run { connection in
            var subscriptions: [ZoneSubscription] = []
            for try await (id, zone) in try await connection.execute(PostgresPollReads.Subscriptions(account: account), logger: logger) {
                subscriptions.append(ZoneSubscription(id: id, zone: RecordZoneID(zoneName: zone)))
            }
            return subscriptions
        }
    }

    public func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws {
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                """
                INSERT INTO subscription (account, id, zone_name, created_at) VALUES (\(account), \(subscription.id), \(subscription.zone.zoneName), \(now))
                ON CONFLICT (account, id) DO UPDATE SET zone_name = excluded.zone_name
                """, logger: logger)
        }
    }

    public func deleteSubscription(id: String, account: String) async throws -> Bool {
        try await run { connection in
            try await Self.count(
                "WITH gone AS (DELETE FROM subscription WHERE account = \(account) AND id = \(id) RETURNING 1) SELECT COUNT(*) FROM gone",
                connection, logger) > 0
        }
    }

    /// `NOTIFY` on `changeChannel` with `process`, `account` and each zone's name, one line each,
    /// if another process holds polls of `account` (a `change_listener` row not expired): in
    /// one statement, so that a change nobody else waits for costs no more than the look.
    ///
    /// A process records itself before it registers a poll, and this looks after the change
    /// has committed: a change committed after a poll registered is always announced to it,
    /// and one committed before is found by the poll's `since`.
    public func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws {
        guard !zones.isEmpty else { return }
        let payloads = zones.map { [process, account, $0.zoneName].joined(separator: "\n") }
        try await run { connection in
            try await connection.query(
                """
                SELECT pg_notify(\(changeChannel), payload) FROM unnest(\(payloads)::text[]) AS payload
                WHERE EXISTS (SELECT 1 FROM change_listener WHERE account = \(account) AND process <> \(process) AND expires > now())
                """, logger: logger)
        }
    }

    /// Writes `process`'s row for `account`, expiring `duration` from now by the database's
    /// clock (the processes' clocks need not agree), and forgets the other processes' rows
    /// of `account` that have expired.
    public func keepListening(account: String, process: String, for duration: Duration) async throws {
        let seconds = Double(duration / .milliseconds(1)) / 1000
        try await run { connection in
            try await connection.query(
                """
                WITH expired AS (DELETE FROM change_listener WHERE account = \(account) AND process <> \(process) AND expires < now())
                INSERT INTO change_listener (account, process, expires) VALUES (\(account), \(process), now() + make_interval(secs => \(seconds)))
                ON CONFLICT (account, process) DO UPDATE SET expires = excluded.expires
                """, logger: logger)
        }
    }

    /// Listens as `listenForChanges(_:whenListening:)` does, telling no one when it starts.
    public func listenForChanges(_ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void) async throws {
        try await listenForChanges(handler, whenListening: {})
    }

    /// Holds one pooled connection that `LISTEN`s, and hands each announcement to
    /// `handler`; after a lost connection it listens again a second later, or while the
    /// database is down, within a quarter of a second of its return (the outage is logged
    /// once, by the server, not here).
    public func listenForChanges(
        _ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void, whenListening: @escaping @Sendable () -> Void
    ) async throws {
        let availability = connections.availability
        while !Task.isCancelled {
            if availability.isDown {
                try? await Task.sleep(for: .milliseconds(250))
                continue
            }
            do {
                try await connections.withConnection { connection in
                    try await connection.listen(on: changeChannel) { notifications in
                        whenListening()
                        for try await notification in notifications {
                            let parts = notification.payload.split(separator: "\n", omittingEmptySubsequences: false)
                            guard parts.count == 3 else { continue }
                            handler(String(parts[0]), String(parts[1]), RecordZoneID(zoneName: String(parts[2])))
                        }
                    }
                }
            } catch where !Task.isCancelled {
                if case let .unavailable(cause) = PostgresFailure(error) {
                    connections.connectionFailed(cause)
                } else if !availability.isDown {
                    logger.warning("listening for changes: \(Self.describe(error)); again in a second")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
