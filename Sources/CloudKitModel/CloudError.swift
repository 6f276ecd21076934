/// Why the remote refused a request, modelled on CloudKit's `CKError` codes.
///
/// Codable so that scripted faults can be stored in the remote's SQLite file and shown by
/// `ideabox remote status`.
public enum CloudError: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The device has no network (airplane mode); nothing reached the server.
    case networkUnavailable
    /// The network failed during the request; it may or may not have been applied.
    case networkFailure
    /// The device would not talk to `host`: its certificate is not trusted, or the
    /// connection is plain HTTP to another machine; `reason` says which. Nothing was sent.
    case untrustedServer(host: String, reason: String)
    /// Nothing answered at `host` (`cause` says how the connection failed); nothing was sent.
    case serverUnreachable(host: String, cause: UnreachableCause)
    /// The device is not signed in to an account.
    case notAuthenticated
    /// The server refused the device's token: wrong, revoked, or its account deleted.
    /// Signing in again with a new token is the way back.
    case tokenRefused
    /// The account's storage is full; saves of new records fail until records are deleted.
    case quotaExceeded
    /// The zone is busy with other requests; retry after `retryAfter` seconds.
    case zoneBusy(retryAfter: Double)
    /// The client sent too many requests; retry after `retryAfter` seconds.
    case requestRateLimited(retryAfter: Double)
    /// The service is down for a while, possibly saying when to retry.
    case serviceUnavailable(retryAfter: Double?)
    /// The server answers but its database (the store behind `serve`) does not; retry after
    /// `retryAfter` seconds. A request refused so was not applied (one cut off as the database
    /// went commits whole or not at all, and sent again settles by its change tags).
    case serverDatabaseUnavailable(retryAfter: Double)
    /// The server failed in a way it does not explain.
    case internalError
    /// Some items of a request failed, each for its own reason.
    case partialFailure([RecordID: CloudError])
    /// The request held more items than the server accepts in one request.
    case limitExceeded
    /// The record does not exist on the server (it was deleted since the client read it).
    case unknownItem
    /// The zone does not exist in this account's database.
    case zoneNotFound
    /// The change token is older than the history the server keeps: fetch from nil.
    case changeTokenExpired
    /// The record changed on the server since the client read it; here is the server's copy.
    case serverRecordChanged(serverRecord: RemoteRecord?)
    /// The server refused the request as one it cannot take (CloudKit Web Services'
    /// `BAD_REQUEST`), saying why in `reason`; sending it again as it is fails again.
    case badRequest(reason: String)
    /// The account's encryption changed since the device looked at it: the remote takes only
    /// sealed records while the account has a key envelope, and none once it has been turned
    /// off (`SealingRule`). Nothing of that record was saved; look again, then send it again.
    case encryptionChanged

    /// The error's kind without its details: what a script or a rate names.
    public enum Code: String, Hashable, Codable, Sendable, CaseIterable {
        /// `CloudError.networkUnavailable`.
        case networkUnavailable
        /// `CloudError.networkFailure`.
        case networkFailure
        /// `CloudError.untrustedServer`.
        case untrustedServer
        /// `CloudError.serverUnreachable`.
        case serverUnreachable
        /// `CloudError.notAuthenticated`.
        case notAuthenticated
        /// `CloudError.tokenRefused`.
        case tokenRefused
        /// `CloudError.quotaExceeded`.
        case quotaExceeded
        /// `CloudError.zoneBusy`.
        case zoneBusy
        /// `CloudError.requestRateLimited`.
        case requestRateLimited
        /// `CloudError.serviceUnavailable`.
        case serviceUnavailable
        /// `CloudError.serverDatabaseUnavailable`.
        case serverDatabaseUnavailable
        /// `CloudError.internalError`.
        case internalError
        /// `CloudError.partialFailure`.
        case partialFailure
        /// `CloudError.limitExceeded`.
        case limitExceeded
        /// `CloudError.unknownItem`.
        case unknownItem
        /// `CloudError.zoneNotFound`.
        case zoneNotFound
        /// `CloudError.changeTokenExpired`.
        case changeTokenExpired
        /// `CloudError.serverRecordChanged`.
        case serverRecordChanged
        /// `CloudError.badRequest`.
        case badRequest
        /// `CloudError.encryptionChanged`.
        case encryptionChanged
    }

    /// The error of kind `code`; `retryAfter` applies to the kinds that carry one (zone busy
    /// defaults to 60 s, rate limited to 30 s, the server's database to 2 s). Partial failures are empty and a changed
    /// server record carries no record.
    public init(code: Code, retryAfter: Double? = nil) {
        switch code {
        case .networkUnavailable: self = .networkUnavailable
        case .networkFailure: self = .networkFailure
        case .untrustedServer: self = .untrustedServer(host: "the server", reason: "its certificate is not trusted")
        case .serverUnreachable: self = .serverUnreachable(host: "the server", cause: .refused)
        case .notAuthenticated: self = .notAuthenticated
        case .tokenRefused: self = .tokenRefused
        case .quotaExceeded: self = .quotaExceeded
        case .zoneBusy: self = .zoneBusy(retryAfter: retryAfter ?? 60)
        case .requestRateLimited: self = .requestRateLimited(retryAfter: retryAfter ?? 30)
        case .serviceUnavailable: self = .serviceUnavailable(retryAfter: retryAfter)
        case .serverDatabaseUnavailable: self = .serverDatabaseUnavailable(retryAfter: retryAfter ?? 2)
        case .internalError: self = .internalError
        case .partialFailure: self = .partialFailure([:])
        case .limitExceeded: self = .limitExceeded
        case .unknownItem: self = .unknownItem
        case .zoneNotFound: self = .zoneNotFound
        case .changeTokenExpired: self = .changeTokenExpired
        case .serverRecordChanged: self = .serverRecordChanged(serverRecord: nil)
        case .badRequest: self = .badRequest(reason: "the request is not one the server takes")
        case .encryptionChanged: self = .encryptionChanged
        }
    }

    /// This error's kind.
    public var code: Code {
        switch self {
        case .networkUnavailable: .networkUnavailable
        case .networkFailure: .networkFailure
        case .untrustedServer: .untrustedServer
        case .serverUnreachable: .serverUnreachable
        case .notAuthenticated: .notAuthenticated
        case .tokenRefused: .tokenRefused
        case .quotaExceeded: .quotaExceeded
        case .zoneBusy: .zoneBusy
        case .requestRateLimited: .requestRateLimited
        case .serviceUnavailable: .serviceUnavailable
        case .serverDatabaseUnavailable: .serverDatabaseUnavailable
        case .internalError: .internalError
        case .partialFailure: .partialFailure
        case .limitExceeded: .limitExceeded
        case .unknownItem: .unknownItem
        case .zoneNotFound: .zoneNotFound
        case .changeTokenExpired: .changeTokenExpired
        case .serverRecordChanged: .serverRecordChanged
        case .badRequest: .badRequest
        case .encryptionChanged: .encryptionChanged
        }
    }

    /// How many seconds the server asks the client to wait before retrying, if it said.
    /// For a partial failure, the longest wait any of its items asks for.
    public var retryAfter: Double? {
        switch self {
        case let .zoneBusy(seconds), let .requestRateLimited(seconds), let .serverDatabaseUnavailable(seconds): seconds
        case let .serviceUnavailable(seconds): seconds
        case let .partialFailure(items): items.values.compactMap(\.retryAfter).max()
        default: nil
        }
    }

    /// Whether retrying the same request later may succeed without the client changing
    /// anything. A partial failure is transient when every failed item is.
    public var isTransient: Bool {
        switch self {
        // An untrusted server may be fixed (its certificate renewed) without the device changing.
        case .networkUnavailable, .networkFailure, .untrustedServer, .serverUnreachable, .zoneBusy, .requestRateLimited,
             .serviceUnavailable, .serverDatabaseUnavailable, .internalError:
            true
        // Sent again after a look at the account, it goes through.
        case .encryptionChanged:
            true
        case let .partialFailure(items):
            !items.isEmpty && items.values.allSatisfy(\.isTransient)
        case .notAuthenticated, .tokenRefused, .quotaExceeded, .limitExceeded, .unknownItem, .zoneNotFound,
             .changeTokenExpired, .serverRecordChanged, .badRequest:
            false
        }
    }

    /// A short English line for logs, such as `zone busy (retry after 60 s)`.
    public var description: String {
        switch self {
        case .networkUnavailable: "network unavailable"
        case .networkFailure: "network failure"
        case let .untrustedServer(host, reason): "not talking to \(host): \(reason)"
        case let .serverUnreachable(host, cause): cause.description(host: host)
        case .notAuthenticated: "not signed in to an account"
        case .tokenRefused: "the server refused this device's token"
        case .quotaExceeded: "storage quota exceeded"
        case let .zoneBusy(seconds): "zone busy (retry after \(formatted(seconds)) s)"
        case let .requestRateLimited(seconds): "request rate limited (retry after \(formatted(seconds)) s)"
        case .serviceUnavailable(nil): "service unavailable"
        case let .serviceUnavailable(seconds?): "service unavailable (retry after \(formatted(seconds)) s)"
        case let .serverDatabaseUnavailable(seconds): "the server's database is not answering (retry after \(formatted(seconds)) s)"
        case .internalError: "internal server error"
        case let .partialFailure(items): "partial failure (\(items.count) \(items.count == 1 ? "item" : "items") failed)"
        case .limitExceeded: "too many items in one request"
        case .unknownItem: "record not found on the server"
        case .zoneNotFound: "zone not found"
        case .changeTokenExpired: "change token expired"
        case .serverRecordChanged: "record changed on the server"
        case let .badRequest(reason): "the server refused the request: \(reason)"
        case .encryptionChanged: "the account's encryption changed since this device looked"
        }
    }
}

/// How a connection to a server failed before any answer came.
public enum UnreachableCause: String, Hashable, Codable, Sendable, CaseIterable {
    /// The host answered that nothing listens on the port (connection refused).
    case refused
    /// The host's name is not known (DNS).
    case unknownHost
    /// No answer came in time.
    case timedOut
    /// The connection broke before the answer was whole.
    case connectionLost

    /// A short English line naming `host`, such as `nothing listens at 127.0.0.1:8420`.
    public func description(host: String) -> String {
        switch self {
        case .refused: "nothing listens at \(host) (connection refused)"
        case .unknownHost: "no host is named \(host)"
        case .timedOut: "\(host) did not answer in time"
        case .connectionLost: "the connection to \(host) broke off"
        }
    }
}

/// `60` for whole seconds, `1.5` otherwise.
private func formatted(_ seconds: Double) -> String {
    seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
}
