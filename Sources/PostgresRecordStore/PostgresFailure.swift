import _ConnectionPoolModule
import PostgresNIO

/// What a failed call to PostgreSQL means to the store: run it again, the database is not
/// answering, or an error of the call's own.
enum PostgresFailure: Equatable {
    /// A serialization failure or a deadlock: the transaction was rolled back and may be rerun.
    case rerun
    /// The connection was lost or refused, or the database is shutting down or starting up:
    /// nothing of the call was applied (a transaction commits whole or not at all), and the
    /// call would fail the same way until the database answers again. `cause` says how, in
    /// the driver's words.
    case unavailable(cause: String)
    /// Anything else: the call's own error, as it is.
    case other

    /// What `error`, thrown by a call to the pool, means.
    init(_ error: any Error) {
        if let error = error as? PSQLError {
            self.init(code: error.code, sqlState: error.serverInfo?[.sqlState], cause: PostgresRecordStore.describe(error))
        } else if error is ConnectionPoolError {
            // The pool's own refusals: shut down, or no connection opened for 15 s.
            self = .unavailable(cause: "no connection to the database could be opened (\(error))")
        } else {
            self = .other
        }
    }

    /// What an error of kind `code` (with PostgreSQL's SQLSTATE `sqlState` for a server's
    /// error) means.
    init(code: PSQLError.Code, sqlState: String?, cause: String) {
        switch code {
        case .server:
            guard let sqlState else {
                self = .other
                return
            }
            if Self.rerunStates.contains(sqlState) {
                self = .rerun
            } else if sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") {
                self = .unavailable(cause: cause)
            } else {
                self = .other
            }
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
            self = .unavailable(cause: cause)
        case .unexpectedBackendMessage, .messageDecodingFailure:
            // A connection whose stream broke mid-message, as one does when the database stops
            // under it: a failure of the connection, not of the call.
            self = .unavailable(cause: cause)
        default:
            self = .other
        }
    }

    /// Serialization failure and deadlock.
    static let rerunStates: Set<String> = ["40001", "40P01"]

    // Class 57P is the database not answering: the administrator's or a crash's shutdown, a
    // database starting up or shutting down (`cannot_connect_now`), one dropped or gone; so is
    // class 08, a connection's failure. A cancelled query (57014) is the call's own.
}
