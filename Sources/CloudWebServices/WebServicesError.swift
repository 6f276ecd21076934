import CloudKitModel
import Foundation

/// An error as CloudKit Web Services writes it: `{uuid, serverErrorCode, reason, retryAfter,
/// recordName}` with the HTTP status Apple documents for the code, and its meaning as a
/// `CloudError` on the client.
///
/// The server answers with Apple's fourteen codes only (`codes`). CloudKit's native
/// conditions that Web Services has no code for take the nearest one: a busy zone is
/// `TRY_AGAIN_LATER` with `retryAfter`; too many operations or too big a body, and an expired
/// or foreign sync token, are `BAD_REQUEST` whose `reason` starts with the native error's name
/// (`limitExceeded:`, `changeTokenExpired:`), which is how IdeaBox's client tells them apart
/// (**ours**). A store that stops answering is `TRY_AGAIN_LATER` (HTTP 503, the status of
/// CloudKit's native `serviceUnavailable`) with `retryAfter`, its `reason` starting
/// `serverDatabaseUnavailable:`, so that the device can say that it is the server's database
/// (ours; other clients see Apple's code and wait). Also ours: `serverRecord` beside `CONFLICT`/`EXISTS` in a record's result, so
/// that the client can settle the conflict without another fetch. The client still reads the
/// codes earlier servers wrote (`ZONE_BUSY`, `LIMIT_EXCEEDED`, `CHANGE_TOKEN_EXPIRED`).
public struct WebServicesError: Error, Equatable, Sendable {
    /// The server error code, such as `ZONE_NOT_FOUND`.
    public var code: String
    /// A sentence for people.
    public var reason: String
    /// Seconds the client should wait before retrying, if the server says.
    public var retryAfter: Double?
    /// Where a person learns how to sign in (with `AUTHENTICATION_REQUIRED`).
    public var redirectURL: String?
    /// The HTTP status when it is not the code's own (405 for a method an endpoint does not take).
    public var statusOverride: Int?
    /// The methods the endpoint takes, for a 405's `Allow` header (RFC 9110, 15.5.6).
    public var allowedMethods: [String]?

    /// An error with this code, reason and wait.
    public init(code: String, reason: String, retryAfter: Double? = nil, redirectURL: String? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
    }

    /// The request needed the account's token and had none; `redirectURL` says how to get one.
    public static func authenticationRequired(redirectURL: String) -> WebServicesError {
        WebServicesError(
            code: "AUTHENTICATION_REQUIRED",
            reason: "This request needs the account's web auth token (ckWebAuthToken, with the container's ckAPIToken).",
            redirectURL: redirectURL)
    }

    /// The endpoint does not take this method, only those `allowed`: `BAD_REQUEST` with HTTP
    /// status 405, which names them in `Allow`.
    public static func methodNotAllowed(_ allowed: [String]) -> WebServicesError {
        var error = WebServicesError(code: "BAD_REQUEST", reason: "This endpoint takes \(allowed.joined(separator: " and ")) only.")
        error.statusOverride = 405
        error.allowedMethods = allowed
        return error
    }

    /// The token is not one the server knows, or it was revoked.
    public static let authenticationFailed = WebServicesError(
        code: "AUTHENTICATION_FAILED", reason: "The token is not valid, or it was revoked.")

    /// A malformed request, with what was wrong.
    public static func badRequest(_ reason: String) -> WebServicesError {
        WebServicesError(code: "BAD_REQUEST", reason: reason)
    }

    /// Apple's fourteen server error codes and the HTTP status of each.
    public static let codes: [String: Int] = [
        "ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401, "AUTHENTICATION_REQUIRED": 421,
        "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409, "INTERNAL_ERROR": 500, "NOT_FOUND": 404,
        "QUOTA_EXCEEDED": 413, "THROTTLED": 429, "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412,
        "ZONE_NOT_FOUND": 404,
    ]

    /// The start of the `reason` of a `BAD_REQUEST` that stands for `CloudError.limitExceeded`.
    public static let limitExceededPrefix = "limitExceeded: "
    /// The start of the `reason` of a `BAD_REQUEST` that stands for `CloudError.changeTokenExpired`.
    public static let changeTokenExpiredPrefix = "changeTokenExpired: "
    /// The start of the `reason` of a per-record `BAD_REQUEST` that stands for
    /// `CloudError.encryptionChanged` (**ours**: `SealingRule`).
    public static let encryptionChangedPrefix = "encryptionChanged: "
    /// The start of the `reason` of a `TRY_AGAIN_LATER` that stands for
    /// `CloudError.serverDatabaseUnavailable`: the server's store does not answer.
    public static let serverDatabaseUnavailablePrefix = "serverDatabaseUnavailable: "

    /// The server's store does not answer: `TRY_AGAIN_LATER` (503) with `retryAfter`, saying so.
    public static func serverDatabaseUnavailable(retryAfter: Double) -> WebServicesError {
        WebServicesError(
            code: "TRY_AGAIN_LATER",
            reason: serverDatabaseUnavailablePrefix + "the server's database is not answering; try again in "
                + "\(Int(retryAfter.rounded(.up))) s.",
            retryAfter: retryAfter)
    }

    /// Too many operations, or too big a body or asset: `BAD_REQUEST`, saying so.
    public static func limitExceeded(_ reason: String) -> WebServicesError {
        WebServicesError(code: "BAD_REQUEST", reason: limitExceededPrefix + reason)
    }

    /// The HTTP status CloudKit uses for this code (400 for a code it does not document).
    public var httpStatus: Int {
        statusOverride ?? Self.codes[code] ?? 400
    }

    /// The server's answer for `error`, raised while serving a request.
    public init(_ error: CloudError) {
        let reason = error.description
        switch error {
        case .notAuthenticated, .tokenRefused: self = .authenticationFailed
        case .quotaExceeded: self.init(code: "QUOTA_EXCEEDED", reason: reason)
        case let .zoneBusy(seconds): self.init(code: "TRY_AGAIN_LATER", reason: reason, retryAfter: seconds)
        case let .requestRateLimited(seconds): self.init(code: "THROTTLED", reason: reason, retryAfter: seconds)
        case let .serviceUnavailable(seconds): self.init(code: "TRY_AGAIN_LATER", reason: reason, retryAfter: seconds)
        case let .serverDatabaseUnavailable(seconds): self = .serverDatabaseUnavailable(retryAfter: seconds)
        case .limitExceeded: self = .limitExceeded(reason)
        case .unknownItem: self.init(code: "NOT_FOUND", reason: reason)
        case .zoneNotFound: self.init(code: "ZONE_NOT_FOUND", reason: reason)
        case .changeTokenExpired:
            self.init(code: "BAD_REQUEST", reason: Self.changeTokenExpiredPrefix + reason + " Fetch the zone again without a token.")
        case .serverRecordChanged: self.init(code: "CONFLICT", reason: reason)
        case let .badRequest(reason): self = .badRequest(reason)
        case .encryptionChanged:
            self.init(
                code: "BAD_REQUEST",
                reason: Self.encryptionChangedPrefix + "this account's database takes "
                    + "only sealed records while it holds a key envelope (\(SealingRule.envelopeType) in zone "
                    + "\(SealingRule.keyZone.zoneName)), and no sealed record once that zone holds none; look at the envelope again and send again.")
        case .networkUnavailable, .networkFailure, .untrustedServer, .serverUnreachable, .internalError, .partialFailure:
            self.init(code: "INTERNAL_ERROR", reason: CloudError.internalError.description)
        }
    }

    /// What this error means to the client. `serverRecord` goes with a conflict.
    public func cloudError(serverRecord: RemoteRecord? = nil) -> CloudError {
        switch code {
        case "AUTHENTICATION_REQUIRED", "AUTHENTICATION_FAILED", "ACCESS_DENIED": .notAuthenticated
        case "QUOTA_EXCEEDED": .quotaExceeded
        case "ZONE_BUSY": .zoneBusy(retryAfter: retryAfter ?? 60)
        case "BAD_REQUEST" where reason.hasPrefix(Self.limitExceededPrefix): .limitExceeded
        case "BAD_REQUEST" where reason.hasPrefix(Self.changeTokenExpiredPrefix): .changeTokenExpired
        case "BAD_REQUEST" where reason.hasPrefix(Self.encryptionChangedPrefix): .encryptionChanged
        case "THROTTLED": .requestRateLimited(retryAfter: retryAfter ?? 30)
        case "TRY_AGAIN_LATER" where reason.hasPrefix(Self.serverDatabaseUnavailablePrefix):
            .serverDatabaseUnavailable(retryAfter: retryAfter ?? 2)
        case "TRY_AGAIN_LATER": .serviceUnavailable(retryAfter: retryAfter)
        case "LIMIT_EXCEEDED": .limitExceeded
        case "NOT_FOUND": .unknownItem
        case "ZONE_NOT_FOUND": .zoneNotFound
        case "CHANGE_TOKEN_EXPIRED": .changeTokenExpired
        case "CONFLICT", "EXISTS": .serverRecordChanged(serverRecord: serverRecord)
        case "BAD_REQUEST": .badRequest(reason: reason)
        default: .internalError
        }
    }

    /// `{uuid, serverErrorCode, reason}` with `retryAfter` when there is one; the `uuid` is
    /// new each time, naming this answer in the server's log and the client's report.
    public var object: WebServicesFormat.Object {
        var object: WebServicesFormat.Object = [
            "uuid": .string(UUID().uuidString.lowercased()), "serverErrorCode": .string(code), "reason": .string(reason),
        ]
        if let retryAfter { object["retryAfter"] = .double(retryAfter) }
        if let redirectURL { object["redirectURL"] = .string(redirectURL) }
        return object
    }

    /// The error in a JSON object, or nil if it holds no `serverErrorCode`.
    public init?(_ object: WebServicesFormat.Object) {
        guard let code = object["serverErrorCode"]?.string else { return nil }
        let retryAfter = object["retryAfter"]?.number?.clamped(to: 0...86_400)
        self.init(code: code, reason: object["reason"]?.string ?? "", retryAfter: retryAfter, redirectURL: object["redirectURL"]?.string)
    }
}

extension Double {
    /// This value limited to `range`; NaN becomes its lower bound.
    package func clamped(to range: ClosedRange<Double>) -> Double {
        isNaN ? range.lowerBound : min(max(self, range.lowerBound), range.upperBound)
    }
}
