import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// The idea value and its JSON form.
@Suite struct IdeaTests {
    private static let full = Idea(
        id: UUID(uuidString: "1DEA0001-5A3E-4000-8000-5A3E1DEA5A3E")!,
        title: "學習 SwiftData 👍🏽",
        description: "line one\nline \"two\"\t\\ end",
        isCompleted: true,
        createdAt: Timestamp(milliseconds: 1_795_162_530_123),
        updatedAt: Timestamp(milliseconds: 1_795_162_530_999),
        deviceId: "device-A",
        version: 42,
        lastSyncedAt: Timestamp(milliseconds: 1_795_162_531_000))

    private static func jsonObject(_ idea: Idea) throws -> [String: Any] {
        let data = try JSONEncoder().encode(idea)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyFieldSurvivesAJSONRoundTrip() throws {
        let decoded = try JSONDecoder().decode(Idea.self, from: JSONEncoder().encode(Self.full))
        #expect(decoded == Self.full)
        #expect(decoded.id == Self.full.id)
        #expect(decoded.title == Self.full.title)
        #expect(decoded.description == Self.full.description)
        #expect(decoded.isCompleted)
        #expect(decoded.createdAt.milliseconds == 1_795_162_530_123)
        #expect(decoded.updatedAt.milliseconds == 1_795_162_530_999)
        #expect(decoded.deviceId == "device-A")
        #expect(decoded.version == 42)
        #expect(decoded.lastSyncedAt?.milliseconds == 1_795_162_531_000)
    }

    @Test func jsonFieldsAreTheDocumentedOnes() throws {
        let object = try Self.jsonObject(Self.full)
        #expect(Set(object.keys) == [
            "id", "title", "description", "isCompleted", "createdAt", "updatedAt", "deviceId", "version", "lastSyncedAt",
        ])
        #expect(object["id"] as? String == "1dea0001-5a3e-4000-8000-5a3e1dea5a3e")
        #expect(object["title"] as? String == "學習 SwiftData 👍🏽")
        #expect(object["isCompleted"] as? Bool == true)
        #expect(object["createdAt"] as? String == "2026-11-20T08:15:30.123Z")
        #expect(object["updatedAt"] as? String == "2026-11-20T08:15:30.999Z")
        #expect(object["lastSyncedAt"] as? String == "2026-11-20T08:15:31.000Z")
        #expect(object["deviceId"] as? String == "device-A")
        #expect(object["version"] as? Int == 42)
    }

    @Test func neverSyncedIsNull() throws {
        var idea = Self.full
        idea.lastSyncedAt = nil
        let text = String(decoding: try JSONEncoder().encode(idea), as: UTF8.self)
        #expect(text.contains(#""lastSyncedAt":null"#))
        #expect(try JSONDecoder().decode(Idea.self, from: Data(text.utf8)) == idea)
    }

    @Test func optionalFieldsHaveDefaults() throws {
        let json = #"{"id":"00000000-0000-0000-0000-00000000000A","title":"t","createdAt":"2026-11-20T08:15:30.123Z","deviceId":"d"}"#
        let idea = try JSONDecoder().decode(Idea.self, from: Data(json.utf8))
        #expect(idea.idString == "00000000-0000-0000-0000-00000000000a")
        #expect(idea.description == "")
        #expect(!idea.isCompleted)
        #expect(idea.updatedAt == idea.createdAt)
        #expect(idea.version == 0)
        #expect(idea.lastSyncedAt == nil)
    }

    @Test("Decoding refuses a bad id, a missing field or a bad time", arguments: [
        #"{"id":"not-a-uuid","title":"t","createdAt":"2026-11-20T08:15:30.123Z","deviceId":"d"}"#,
        #"{"title":"t","createdAt":"2026-11-20T08:15:30.123Z","deviceId":"d"}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","createdAt":"2026-11-20T08:15:30.123Z","deviceId":"d"}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"t","deviceId":"d"}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"t","createdAt":"2026-11-20T08:15:30.123Z"}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"t","createdAt":"yesterday","deviceId":"d"}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"t","createdAt":1795162530123,"deviceId":"d"}"#,
    ])
    func decodingRefusesBadInput(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Idea.self, from: Data(json.utf8))
        }
    }

    @Test func idTextIsLowerCase() {
        #expect(Self.full.idString == "1dea0001-5a3e-4000-8000-5a3e1dea5a3e")
        #expect(Self.full.shortId == "1dea0001")
    }

    @Test func updatedAtDefaultsToCreatedAt() {
        let idea = Idea(id: UUID(), title: "t", createdAt: Timestamp(milliseconds: 5), deviceId: "d")
        #expect(idea.updatedAt == Timestamp(milliseconds: 5))
        #expect(idea.version == 0)
        #expect(idea.description == "")
        #expect(!idea.isCompleted)
    }

    @Test func countingIdsAreReadable() {
        let ids = IdGenerator.counting()
        #expect(ids.next().uuidString.lowercased() == "00000000-0000-0000-0000-000000000001")
        #expect(ids.next().uuidString.lowercased() == "00000000-0000-0000-0000-000000000002")
        let fromSixteen = IdGenerator.counting(from: 16)
        #expect(fromSixteen.next().uuidString.lowercased() == "00000000-0000-0000-0000-000000000010")
    }

    @Test func clocks() {
        let manual = ManualClock(start: Timestamp(milliseconds: 100))
        let clock = manual.wallClock
        #expect(clock.now() == Timestamp(milliseconds: 100))
        manual.advance(by: 50)
        #expect(clock.now() == Timestamp(milliseconds: 150))
        manual.set(Timestamp(milliseconds: 10))
        #expect(clock.now() == Timestamp(milliseconds: 10))
        #expect(clock.offset(by: -10).now() == Timestamp(milliseconds: 0))
        #expect(WallClock.fixed(Timestamp(milliseconds: 7)).now() == Timestamp(milliseconds: 7))
    }
}
