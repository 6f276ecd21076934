import PostgresNIO
@testable import PostgresRecordStore
import Testing

/// `PostgresFailure`: which failures of a call mean the database is not answering (the call
/// is answered 503 with a retry-after and the store looks at the database), which are rerun,
/// and which are the call's own.
@Suite struct PostgresFailureTests {
    @Test("A lost, refused or closed connection, and the pool closed, mean the database is not answering", arguments: [
        PSQLError.Code.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown,
        // A stream broken mid-message, as the database stopping under a connection leaves it
        // (CI, 2026-11-29: a save while PostgreSQL stopped was answered 500, not 503).
        .unexpectedBackendMessage, .messageDecodingFailure,
    ])
    func lostConnections(code: PSQLError.Code) {
        #expect(PostgresFailure(code: code, sqlState: nil, cause: "connection refused") == .unavailable(cause: "connection refused"))
    }

    @Test("A shutdown, a database starting up, and a connection's failure (class 08) mean the same", arguments: [
        "57P01", "57P02", "57P03", "57P04", "57P05", "08006", "08001",
    ])
    func shuttingDown(sqlState: String) {
        #expect(PostgresFailure(code: .server, sqlState: sqlState, cause: "terminating connection") == .unavailable(cause: "terminating connection"))
    }

    @Test("A deadlock or a serialization failure is rerun")
    func rerun() {
        #expect(PostgresFailure(code: .server, sqlState: "40001", cause: "") == .rerun)
        #expect(PostgresFailure(code: .server, sqlState: "40P01", cause: "") == .rerun)
    }

    @Test("The call's own errors stay its own: a cancelled query, a constraint, a syntax error, anything else")
    func theCallsOwn() {
        #expect(PostgresFailure(code: .server, sqlState: "57014", cause: "") == .other)
        #expect(PostgresFailure(code: .server, sqlState: "23505", cause: "") == .other)
        #expect(PostgresFailure(code: .server, sqlState: nil, cause: "") == .other)
        #expect(PostgresFailure(code: .queryCancelled, sqlState: nil, cause: "") == .other)
        struct Own: Error {}
        #expect(PostgresFailure(Own()) == .other)
    }
}
