import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// This device's clock against the remote's: measured from the remote's answers, followed by
/// every stamp this device makes (`stamp`), and the stamps a wrong clock left behind brought
/// back to the present.
extension IdeaRepository {
    /// The estimate of this device's clock against the remote's, if an answer measured one.
    public func remoteClockEstimate() throws -> RemoteClockEstimate? {
        try connection.read { db in try remoteClockEstimate(db) }
    }

    func remoteClockEstimate(_ db: Database) throws -> RemoteClockEstimate? {
        RemoteClockEstimate(
            offset: try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.remoteClockOffset]),
            measuredAt: try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.remoteClockMeasuredAt]),
            measuredAtElapsed: try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.remoteClockMeasuredElapsed]))
    }

    /// The remote answered that it was `remoteTime` when this device's clock read `local`:
    /// `remoteTime` is the remote's time then (a save's receipt, which comes just before
    /// its answer), or with `isLowerBound` only a time the remote had reached (another
    /// device's saves in a fetch), which can show that this clock is behind but not ahead.
    public func noteRemoteTime(_ remoteTime: Timestamp, at local: Timestamp, isLowerBound: Bool = false) throws {
        try connection.write { db in
            let offset = remoteTime.milliseconds - local.milliseconds
            if isLowerBound {
                let current = try remoteClockEstimate(db).flatMap { $0.holds(on: clock) ? $0.offset : nil } ?? 0
                guard offset > current + ArrivalRule.tolerance else { return }
            }
            for (key, value) in [(MetaKey.remoteClockOffset, offset), (MetaKey.remoteClockMeasuredAt, local.milliseconds)] {
                try db.run(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
            }
            try db.run(sql: "DELETE FROM meta WHERE key = ?", arguments: [MetaKey.remoteClockMeasuredElapsed])
            if let elapsed = clock.elapsed() {
                try db.run(
                    sql: "INSERT INTO meta (key, value) VALUES (?, ?)",
                    arguments: [MetaKey.remoteClockMeasuredElapsed, elapsed - (clock.now().milliseconds - local.milliseconds)])
            }
        }
    }

    /// Brings every time this device holds that is later than the remote's clock allows (as
    /// an estimate that holds tells it) back to the present, and queues those ideas and
    /// deletes to be sent (again): times a clock that ran ahead left before this device knew
    /// better (its changes still waiting, or settled by an older IdeaBox, which adopted such
    /// stamps from other devices too). They all take one
    /// new stamp of the hybrid clock, after everything else this device holds, so an edit
    /// stays after what it followed, and every device settles on the same times. Returns how
    /// many of them had been settled with the remote (the rest were waiting to be sent, as a
    /// fast clock's changes do until its device learns the remote's time).
    @discardableResult
    public func bringBackFutureTimes() throws -> Int {
        // A sync asks at its start and at each measure of the clock: mostly nothing is due,
        // which a read tells without taking the write lock.
        guard try connection.read({ db in try remoteNowIfFutureTimesAreHeld(db) }) != nil else { return 0 }
        return try write { db in
            guard let now = try remoteNowIfFutureTimesAreHeld(db) else { return 0 }
            let limit = now.adding(milliseconds: ArrivalRule.tolerance)
            let held = try Int64.fetchOne(
                db,
                sql: """
                    SELECT max(COALESCE((SELECT max(updatedAt) FROM idea WHERE updatedAt <= :limit), 0),
                        COALESCE((SELECT max(deletedAt) FROM tombstone WHERE deletedAt <= :limit), 0))
                    """,
                arguments: ["limit": limit]) ?? 0
            let stamp = max(now, Timestamp(milliseconds: held + 1))
            let arguments: StatementArguments = ["stamp": stamp, "limit": limit]
            try db.execute(
                sql: """
                    CREATE TEMP TABLE broughtBack AS
                    SELECT id AS ideaId, 'save' AS operation FROM idea
                    WHERE max(createdAt, updatedAt, titleAt, descriptionAt, completedAt) > :limit
                    UNION ALL
                    SELECT ideaId, 'delete' FROM tombstone WHERE deletedAt > :limit
                    """,
                arguments: arguments)
            defer { try? db.execute(sql: "DROP TABLE temp.broughtBack") }
            let settled = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM temp.broughtBack WHERE ideaId NOT IN (SELECT ideaId FROM outbox)") ?? 0
            try db.execute(
                sql: """
                    UPDATE idea SET createdAt = min(createdAt, :stamp),
                        updatedAt = CASE WHEN updatedAt > :limit THEN :stamp ELSE updatedAt END,
                        titleAt = CASE WHEN titleAt > :limit THEN :stamp ELSE titleAt END,
                        descriptionAt = CASE WHEN descriptionAt > :limit THEN :stamp ELSE descriptionAt END,
                        completedAt = CASE WHEN completedAt > :limit THEN :stamp ELSE completedAt END
                    WHERE id IN (SELECT ideaId FROM temp.broughtBack WHERE operation = 'save');
                    UPDATE tombstone SET deletedAt = :stamp
                    WHERE ideaId IN (SELECT ideaId FROM temp.broughtBack WHERE operation = 'delete');
                    INSERT INTO outbox (ideaId, operation, enqueuedAt, attempts)
                    SELECT ideaId, operation, :stamp, 0 FROM temp.broughtBack WHERE true
                    ON CONFLICT (ideaId) DO UPDATE SET enqueuedAt = excluded.enqueuedAt,
                        pendingSince = COALESCE(outbox.pendingSince, outbox.enqueuedAt);
                    """,
                arguments: arguments)
            try db.run(sql: "UPDATE meta SET value = ? WHERE key = ?", arguments: [stamp, MetaKey.highestTimestamp])
            return settled
        }
    }

    /// The remote's time now, if this device holds a time later than it allows (its clock,
    /// `highestTimestamp`, says so). Only the remote's time tells what is in the future: by
    /// this clock alone (one set back, say) everything would look it, and be moved back
    /// behind what it followed.
    private func remoteNowIfFutureTimesAreHeld(_ db: Database) throws -> Timestamp? {
        guard let estimate = try remoteClockEstimate(db), estimate.holds(on: clock),
              let highest = try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.highestTimestamp])
        else { return nil }
        let now = estimate.remoteTime(on: clock)
        return highest > now.milliseconds + ArrivalRule.tolerance ? now : nil
    }
}
