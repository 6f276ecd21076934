import CloudKitModel
import Foundation
import Testing

/// Errors say whether to retry, when, and what happened.
@Suite struct CloudErrorTests {
    static let record = RemoteRecord(
        recordType: "Idea", recordID: RecordID(recordName: "A", zoneID: RecordZoneID(zoneName: "Z")),
        fields: ["title": .string("x")], changeTag: "1.1", creationDate: nil, modificationDate: nil)

    static let all: [CloudError] = [
        .networkUnavailable, .networkFailure, .notAuthenticated, .quotaExceeded,
        .zoneBusy(retryAfter: 60), .requestRateLimited(retryAfter: 1.5), .serviceUnavailable(retryAfter: nil),
        .serviceUnavailable(retryAfter: 5), .internalError,
        .partialFailure([record.recordID: .serverRecordChanged(serverRecord: record)]),
        .limitExceeded, .unknownItem, .zoneNotFound, .changeTokenExpired, .serverRecordChanged(serverRecord: nil),
        .encryptionChanged,
    ]

    @Test("Every error survives a JSON round trip", arguments: all)
    func roundTrip(error: CloudError) throws {
        #expect(try JSONDecoder().decode(CloudError.self, from: JSONEncoder().encode(error)) == error)
    }

    @Test("An error made from its code has that code", arguments: CloudError.Code.allCases)
    func codes(code: CloudError.Code) {
        #expect(CloudError(code: code).code == code)
        #expect(CloudError(code: code, retryAfter: 7).code == code)
    }

    @Test("Retry-after: zone busy and rate limited always say, service unavailable may, partial failures take the longest")
    func retryAfter() {
        #expect(CloudError(code: .zoneBusy).retryAfter == 60)
        #expect(CloudError(code: .zoneBusy, retryAfter: 2).retryAfter == 2)
        #expect(CloudError(code: .requestRateLimited).retryAfter == 30)
        #expect(CloudError.serviceUnavailable(retryAfter: nil).retryAfter == nil)
        #expect(CloudError.networkFailure.retryAfter == nil)
        let partial = CloudError.partialFailure([
            RecordID(recordName: "a", zoneID: RecordZoneID(zoneName: "Z")): .zoneBusy(retryAfter: 3),
            RecordID(recordName: "b", zoneID: RecordZoneID(zoneName: "Z")): .requestRateLimited(retryAfter: 9),
        ])
        #expect(partial.retryAfter == 9)
    }

    @Test("Transient: the network and the server's load; not the account, the request or the data")
    func transient() {
        let transient = Self.all.filter(\.isTransient).map(\.code)
        #expect(transient == [
            .networkUnavailable, .networkFailure, .zoneBusy, .requestRateLimited, .serviceUnavailable,
            .serviceUnavailable, .internalError, .encryptionChanged,
        ])
        let zone = RecordZoneID(zoneName: "Z")
        #expect(CloudError.partialFailure([RecordID(recordName: "a", zoneID: zone): .networkFailure]).isTransient)
        #expect(!CloudError.partialFailure([
            RecordID(recordName: "a", zoneID: zone): .networkFailure, RecordID(recordName: "b", zoneID: zone): .unknownItem,
        ]).isTransient)
        #expect(!CloudError.partialFailure([:]).isTransient)
    }

    @Test("Descriptions are short English lines")
    func descriptions() {
        #expect(CloudError.zoneBusy(retryAfter: 60).description == "zone busy (retry after 60 s)")
        #expect(CloudError.requestRateLimited(retryAfter: 1.5).description == "request rate limited (retry after 1.5 s)")
        #expect(CloudError.serviceUnavailable(retryAfter: nil).description == "service unavailable")
        #expect(CloudError.partialFailure([Self.record.recordID: .unknownItem]).description == "partial failure (1 item failed)")
        #expect(CloudError.networkUnavailable.description == "network unavailable")
        #expect(Set(Self.all.map(\.description)).count == Self.all.count)
    }
}
