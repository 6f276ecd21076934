import CloudKitModel
import Foundation
import IdeaBoxFoundation
@testable import PostgresRecordStore
import PostgresNIO
import RemoteTestSupport
import Testing

/// A page of a zone's changes on PostgreSQL reads its rows by the change index, however many
/// records the zone holds: a page at a million records took 444 ms when the table was
/// scanned and sorted, 1.4 ms by the index (BENCHMARKS.md, "A million through `serve`").
@Suite struct PostgresChangesPlanTests {
    @Test("A page of changes of a zone of 60,000 records reads both tables by their change index, not by a scan",
          .enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
    func aPageOfChangesReadsByTheIndex() async throws {
        let store = try await TestPostgres.store(clock: .system, maximumRecordsPerRequest: 200)
        let zone = RecordZoneID(zoneName: "Ideas")
        let zoneRowID = try await store.transaction { connection in
            let rows = try await connection.query(
                "INSERT INTO zone (account, name, created_at, change_sequence) VALUES ('alice', 'Ideas', 0, 60000) RETURNING id",
                logger: store.logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            try await connection.query(
                """
                INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                SELECT \(id), 'r' || g, g, 'Idea', 't' || g, 0, 0, '{}' FROM generate_series(1, 60000) g
                """, logger: store.logger)
            try await connection.query("ANALYZE record", logger: store.logger)
            try await connection.query("ANALYZE deletion", logger: store.logger)
            return id
        }

        let plan = try await store.transaction(readOnly: true) { connection in
            var query = PostgresRecordStore.changesQuery(zoneRowID: zoneRowID, since: 30000, limit: 1001)
            query.sql = "EXPLAIN " + query.sql
            var lines: [String] = []
            for try await line in try await connection.query(query, logger: store.logger).decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
        #expect(!plan.contains("Seq Scan on record"), "\(plan)")
        #expect(plan.contains("Index Scan using record_zone_id_change_sequence_key"), "\(plan)")

        let page = try await store.fetchChanges(account: "alice", in: zone, since: nil, resultsLimit: 1000)
        #expect(page.changed.map(\.recordID.recordName).prefix(3) == ["r1", "r2", "r3"])
        #expect(page.changed.count == 1000)
        #expect(page.moreComing)
    }
}
