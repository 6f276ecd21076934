import PostgresNIO

/// The reads every long poll makes (its set-up: its token, its account's subscriptions and
/// zone tokens; its answer's zone tokens), as statements each connection prepares once and
/// then only binds and executes: PostgreSQL parses and plans them once a connection instead
/// of once a poll, which more than halves what a read costs it (pgbench, one such lookup:
/// 3,300–4,000 reads a second unprepared, 7,800–9,400 prepared). Each still reads the table as it is now: nothing read
/// is kept between requests.
enum PostgresPollReads {
    /// A statement bound to one text, its key.
    protocol Lookup: PostgresPreparedStatement {
        var key: String { get }
    }

    /// A token's account and when it was last used, if it is not revoked.
    struct ValidToken: Lookup {
        static let name = "ideabox_valid_token"
        static let sql = "SELECT account, last_used_at FROM access_token WHERE hash = $1 AND revoked_at IS NULL"
        typealias Row = (String, Int64?)

        var hash: String
        var key: String { hash }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    /// An account's subscriptions, as id and zone name, by id.
    struct Subscriptions: Lookup {
        static let name = "ideabox_subscriptions"
        static let sql = "SELECT id, zone_name FROM subscription WHERE account = $1 ORDER BY id"
        typealias Row = (String, String)

        var account: String
        var key: String { account }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    /// A token's account and when it was last used, if it is not revoked (as `ValidToken`),
    /// a database's subscriptions (as `Subscriptions`) and its zones (as `ZoneSequences`), in
    /// one statement: first the token's row (of nulls for none), then a row each
    /// subscription, by id, then a row each zone, told apart by the first column.
    struct PollSetUp: PostgresPreparedStatement {
        static let name = "ideabox_poll_set_up_with_zones"
        static let sql = """
            SELECT 0 AS part, t.account, t.last_used_at AS number, NULL::text AS id, NULL::text AS name, NULL::bigint AS sequence
            FROM (SELECT 1) AS one LEFT JOIN access_token t ON t.hash = $1 AND t.revoked_at IS NULL
            UNION ALL SELECT 1, NULL, NULL, s.id, s.zone_name, NULL FROM subscription s WHERE s.account = $2
            UNION ALL SELECT 2, NULL, z.id, NULL, z.name, z.change_sequence FROM zone z WHERE z.account = $2
            ORDER BY part, id
            """
        /// Which part of the answer the row is (0 the token, 1 a subscription, 2 a zone), the
        /// token's account, its last use or the zone's row id, the subscription's id, the
        /// subscription's or the zone's name, the zone's change sequence.
        typealias Row = (Int32, String?, Int64?, String?, String?, Int64?)

        var hash: String
        var owner: String

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(hash)
            bindings.append(owner)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    /// An account's zones, as row id, name and change sequence.
    struct ZoneSequences: Lookup {
        static let name = "ideabox_zone_sequences"
        static let sql = "SELECT id, name, change_sequence FROM zone WHERE account = $1"
        typealias Row = (Int64, String, Int64)

        var account: String
        var key: String { account }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }
}

extension PostgresPollReads.Lookup {
    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(key)
        return bindings
    }
}
