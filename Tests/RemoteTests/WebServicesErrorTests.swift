import CloudKitModel
import CloudWebServices
import Foundation
import Testing

/// `WebServicesError`: the server writes Apple's fourteen codes only, with Apple's statuses
/// and a `uuid`, and the client reads back what each meant.
@Suite struct WebServicesErrorTests {
    /// Every condition a store or the server raises, one of each.
    static let conditions: [CloudError] = CloudError.Code.allCases.map { code in
        switch code {
        case .zoneBusy: .zoneBusy(retryAfter: 7)
        case .requestRateLimited: .requestRateLimited(retryAfter: 3)
        case .serviceUnavailable: .serviceUnavailable(retryAfter: 2)
        case .partialFailure: .partialFailure([:])
        case .serverRecordChanged: .serverRecordChanged(serverRecord: nil)
        default: CloudError(code: code)
        }
    }

    @Test("Apple's fourteen codes, with Apple's statuses")
    func applesCodes() {
        #expect(WebServicesError.codes == [
            "ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401, "AUTHENTICATION_REQUIRED": 421,
            "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409, "INTERNAL_ERROR": 500, "NOT_FOUND": 404,
            "QUOTA_EXCEEDED": 413, "THROTTLED": 429, "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412,
            "ZONE_NOT_FOUND": 404,
        ])
    }

    @Test("Every condition goes out as one of Apple's codes, with its status and a uuid", arguments: conditions)
    func everyConditionIsApples(condition: CloudError) throws {
        let error = WebServicesError(condition)
        #expect(WebServicesError.codes[error.code] == error.httpStatus, "\(condition) → \(error.code)")
        let object = error.object
        #expect(object["serverErrorCode"]?.string == error.code)
        let uuid = try #require(object["uuid"]?.string)
        #expect(UUID(uuidString: uuid) != nil && uuid == uuid.lowercased())
        #expect(object["uuid"] != error.object["uuid"], "each answer has its own uuid")
    }

    @Test("What the client needs to act on comes back as it went out", arguments: conditions)
    func theClientReadsBackWhatItActsOn(condition: CloudError) throws {
        let written = WebServicesError(condition)
        let read = try #require(WebServicesError(written.object))
        let expected: CloudError = switch condition {
        // Network conditions never leave the device; the server has only an internal error for them.
        case .networkUnavailable, .networkFailure, .untrustedServer, .serverUnreachable, .partialFailure: .internalError
        // The wire has one refusal; the client names it by whether it sent a token.
        case .tokenRefused: .notAuthenticated
        // TRY_AGAIN_LATER is both; the wait is what the client acts on.
        case let .zoneBusy(seconds): .serviceUnavailable(retryAfter: seconds)
        default: condition
        }
        #expect(read.cloudError() == expected)
    }

    @Test("The server's database not answering is TRY_AGAIN_LATER (503) with retryAfter, never 500, and the client knows it for what it is")
    func serverDatabaseUnavailable() throws {
        let error = WebServicesError(.serverDatabaseUnavailable(retryAfter: 2))
        #expect(error.code == "TRY_AGAIN_LATER" && error.httpStatus == 503 && error.retryAfter == 2)
        #expect(error.reason.hasPrefix("serverDatabaseUnavailable: the server's database is not answering"), "\(error.reason)")
        let read = try #require(WebServicesError(error.object))
        #expect(read.cloudError() == .serverDatabaseUnavailable(retryAfter: 2))
        // Without a retryAfter of its own (a proxy's copy), it waits 2 s; any other
        // TRY_AGAIN_LATER is the service unavailable it always was.
        let bare = WebServicesError(code: "TRY_AGAIN_LATER", reason: error.reason)
        #expect(bare.cloudError() == .serverDatabaseUnavailable(retryAfter: 2))
        #expect(WebServicesError(code: "TRY_AGAIN_LATER", reason: "busy", retryAfter: 5).cloudError() == .serviceUnavailable(retryAfter: 5))
    }

    @Test("Too much and an expired token are BAD_REQUEST whose reason names CloudKit's error")
    func nativeConditionsWithoutACode() {
        let limit = WebServicesError(.limitExceeded)
        #expect(limit.code == "BAD_REQUEST" && limit.httpStatus == 400 && limit.reason.hasPrefix("limitExceeded: "))
        let token = WebServicesError(.changeTokenExpired)
        #expect(token.code == "BAD_REQUEST" && token.reason.hasPrefix("changeTokenExpired: "))
        #expect(token.reason.hasSuffix("Fetch the zone again without a token."))
        #expect(WebServicesError.badRequest("zoneID is missing").cloudError() == .badRequest(reason: "zoneID is missing"))
    }

    @Test("Any other BAD_REQUEST reaches the person with the server's reason, not as an internal error, and is not retried as it is")
    func aBadRequestKeepsItsReason() throws {
        let reason = "The field size of record type Photo is INT64; the value is a string."
        let answer: WebServicesFormat.Object = ["serverErrorCode": "BAD_REQUEST", "reason": .string(reason), "uuid": "u"]
        let error = try #require(WebServicesError(answer)).cloudError()
        #expect(error == .badRequest(reason: reason))
        #expect(error.description == "the server refused the request: \(reason)")
        #expect(!error.isTransient)
    }

    @Test("The codes earlier servers wrote are still read", arguments: [
        ("ZONE_BUSY", CloudError.zoneBusy(retryAfter: 5)), ("LIMIT_EXCEEDED", .limitExceeded),
        ("CHANGE_TOKEN_EXPIRED", .changeTokenExpired),
    ])
    func earlierCodes(code: String, meaning: CloudError) throws {
        let read = try #require(WebServicesError(["serverErrorCode": .string(code), "reason": "", "retryAfter": 5]))
        #expect(read.cloudError() == meaning)
    }
}
