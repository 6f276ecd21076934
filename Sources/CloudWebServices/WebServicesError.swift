import CloudKitModel
import Foundation

/// An error as CloudKit Web Services writes it: `{serverErrorCode, reason, retryAfter,
/// recordName}` with the HTTP status Apple documents for the code, and its meaning as a
/// `CloudError` on the client.
///
/// Two codes are ours, for errors CloudKit's native API has but its web services do not
/// name: `CHANGE_TOKEN_EXPIRED` (400) and, in a record's result, `serverRecord` beside
/// `CONFLICT`/`EXISTS` so that the client can settle the conflict without another fetch.
public struct WebServicesError: Error, Equatable, Sendable {
    /// The server error code, such as `ZONE_NOT_FOUND`.
    public var code: String
    /// A sentence for people.
    public var reason: String
    /// Seconds the client should wait before retrying, if the server says.
    public var retryAfter: Double?

    /// An error with this code, reason and wait.
    public init(code: String, reason: String, retryAfter: Double? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// The request needed a token and had none.
    public static let authenticationRequired = WebServicesError(
        code: "AUTHENTICATION_REQUIRED", reason: "This request needs an account token (Authorization: Bearer TOKEN).")
    /// The token is not one the server knows, or it was revoked.
    public static let authenticationFailed = WebServicesError(
        code: "AUTHENTICATION_FAILED", reason: "The token is not valid, or it was revoked.")

    /// A malformed request, with what was wrong.
    public static func badRequest(_ reason: String) -> WebServicesError {
        WebServicesError(code: "BAD_REQUEST", reason: reason)
    }

    /// The HTTP status CloudKit uses for this code.
    public var httpStatus: Int {
        switch code {
        case "ACCESS_DENIED": 403
        case "AUTHENTICATION_FAILED": 401
        case "AUTHENTICATION_REQUIRED": 421
        case "CONFLICT", "EXISTS": 409
        case "INTERNAL_ERROR": 500
        case "NOT_FOUND", "ZONE_NOT_FOUND": 404
        case "QUOTA_EXCEEDED": 413
        case "THROTTLED": 429
        case "TRY_AGAIN_LATER", "ZONE_BUSY": 503
        case "VALIDATING_REFERENCE_ERROR": 412
        default: 400
        }
    }

    /// The server's answer for `error`, raised while serving a request.
    public init(_ error: CloudError) {
        let reason = error.description
        switch error {
        case .notAuthenticated: self = .authenticationFailed
        case .quotaExceeded: self.init(code: "QUOTA_EXCEEDED", reason: reason)
        case let .zoneBusy(seconds): self.init(code: "ZONE_BUSY", reason: reason, retryAfter: seconds)
        case let .requestRateLimited(seconds): self.init(code: "THROTTLED", reason: reason, retryAfter: seconds)
        case let .serviceUnavailable(seconds): self.init(code: "TRY_AGAIN_LATER", reason: reason, retryAfter: seconds)
        case .limitExceeded: self.init(code: "LIMIT_EXCEEDED", reason: reason)
        case .unknownItem: self.init(code: "NOT_FOUND", reason: reason)
        case .zoneNotFound: self.init(code: "ZONE_NOT_FOUND", reason: reason)
        case .changeTokenExpired: self.init(code: "CHANGE_TOKEN_EXPIRED", reason: reason)
        case .serverRecordChanged: self.init(code: "CONFLICT", reason: reason)
        case .networkUnavailable, .networkFailure, .internalError, .partialFailure:
            self.init(code: "INTERNAL_ERROR", reason: CloudError.internalError.description)
        }
    }

    /// What this error means to the client. `serverRecord` goes with a conflict.
    public func cloudError(serverRecord: RemoteRecord? = nil) -> CloudError {
        switch code {
        case "AUTHENTICATION_REQUIRED", "AUTHENTICATION_FAILED", "ACCESS_DENIED": .notAuthenticated
        case "QUOTA_EXCEEDED": .quotaExceeded
        case "ZONE_BUSY": .zoneBusy(retryAfter: retryAfter ?? 60)
        case "THROTTLED": .requestRateLimited(retryAfter: retryAfter ?? 30)
        case "TRY_AGAIN_LATER": .serviceUnavailable(retryAfter: retryAfter)
        case "LIMIT_EXCEEDED": .limitExceeded
        case "NOT_FOUND": .unknownItem
        case "ZONE_NOT_FOUND": .zoneNotFound
        case "CHANGE_TOKEN_EXPIRED": .changeTokenExpired
        case "CONFLICT", "EXISTS": .serverRecordChanged(serverRecord: serverRecord)
        default: .internalError
        }
    }

    /// `{serverErrorCode, reason}` with `retryAfter` when there is one.
    public var object: WebServicesFormat.Object {
        var object: WebServicesFormat.Object = ["serverErrorCode": .string(code), "reason": .string(reason)]
        if let retryAfter { object["retryAfter"] = .double(retryAfter) }
        return object
    }

    /// The error in a JSON object, or nil if it holds no `serverErrorCode`.
    public init?(_ object: WebServicesFormat.Object) {
        guard let code = object["serverErrorCode"]?.string else { return nil }
        let retryAfter = object["retryAfter"]?.number?.clamped(to: 0...86_400)
        self.init(code: code, reason: object["reason"]?.string ?? "", retryAfter: retryAfter)
    }
}

extension Double {
    /// This value limited to `range`; NaN becomes its lower bound.
    package func clamped(to range: ClosedRange<Double>) -> Double {
        isNaN ? range.lowerBound : min(max(self, range.lowerBound), range.upperBound)
    }
}
