import Foundation
import IdeaBoxFoundation
import Testing

/// Millisecond UTC instants and their ISO 8601 text.
@Suite struct TimestampTests {
    // MARK: Formatting

    @Test("ISO 8601 text is UTC with three fractional digits", arguments: [
        (0, "1970-01-01T00:00:00.000Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (999, "1970-01-01T00:00:00.999Z"),
        (1_762_246_800_000, "2025-11-04T09:00:00.000Z"),
        (1_795_162_530_123, "2026-11-20T08:15:30.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
        (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
        (1_735_689_599_999, "2024-12-31T23:59:59.999Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-86_400_000, "1969-12-31T00:00:00.000Z"),
        (-86_400_001, "1969-12-30T23:59:59.999Z"),
        (-2_208_988_800_000, "1900-01-01T00:00:00.000Z"),
        (-2_203_891_200_000, "1900-03-01T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ] as [(Int64, String)])
    func formatsISO8601(milliseconds: Int64, text: String) {
        #expect(Timestamp(milliseconds: milliseconds).iso8601 == text)
        #expect(Timestamp(milliseconds: milliseconds).description == text)
    }

    @Test func formattingAgreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SeededRandomNumberGenerator(seed: 0x1dea)
        for _ in 0..<500 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)
            let timestamp = Timestamp(milliseconds: milliseconds)
            #expect(timestamp.iso8601 == formatter.string(from: timestamp.date), "\(milliseconds)")
        }
    }

    // MARK: Parsing

    @Test func parsingRoundTripsManyValues() throws {
        var generator = SeededRandomNumberGenerator(seed: 2026)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
            let timestamp = Timestamp(milliseconds: milliseconds)
            let parsed = try #require(Timestamp(iso8601: timestamp.iso8601), "\(timestamp.iso8601)")
            #expect(parsed == timestamp)
        }
    }

    @Test("Parses Z, +00:00 and other offsets into UTC", arguments: [
        ("2026-11-20T08:15:30.123Z", 1_795_162_530_123),
        ("2026-11-20T08:15:30.123+00:00", 1_795_162_530_123),
        ("2026-11-20T16:15:30.123+08:00", 1_795_162_530_123),
        ("2026-11-20T16:15:30.123+0800", 1_795_162_530_123),
        ("2026-11-20T03:15:30.123-05:00", 1_795_162_530_123),
        ("2026-11-20T13:45:30.123+05:30", 1_795_162_530_123),
        ("2026-11-21T00:15:30.123+16:00", 1_795_162_530_123),
        ("1970-01-01T08:00:00.000+08:00", 0),
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01 00:00:00.000Z", 0),
        ("2026-11-20T08:15:30.1Z", 1_795_162_530_100),
        ("2026-11-20T08:15:30.12Z", 1_795_162_530_120),
        ("2026-11-20T08:15:30.123999Z", 1_795_162_530_123),
        ("2000-02-29T00:00:00.000Z", 951_782_400_000),
        ("1969-12-31T23:59:59.999Z", -1),
    ] as [(String, Int64)])
    func parses(text: String, milliseconds: Int64) throws {
        let parsed = try #require(Timestamp(iso8601: text))
        #expect(parsed.milliseconds == milliseconds)
    }

    @Test("Refuses malformed text", arguments: [
        "",
        "2026",
        "2026-11-20",
        "2026-11-20T08:15:30",
        "2026-11-20T08:15:30.123",
        "2026-11-20T08:15:30.123z",
        "2026-11-20T08:15:30.Z",
        "2026-11-20T08:15:30.123Zjunk",
        " 2026-11-20T08:15:30.123Z",
        "2026-11-20T08:15:30.123Z ",
        "2026-13-20T08:15:30.123Z",
        "2026-00-20T08:15:30.123Z",
        "2026-11-00T08:15:30.123Z",
        "2026-11-31T08:15:30.123Z",
        "2025-02-29T08:15:30.123Z",
        "1900-02-29T08:15:30.123Z",
        "2026-11-20T24:00:00.000Z",
        "2026-11-20T08:60:00.000Z",
        "2026-11-20T08:15:60.000Z",
        "2026/11/20T08:15:30.123Z",
        "26-11-20T08:15:30.123Z",
        "2026-1-20T08:15:30.123Z",
        "2026-11-20T8:15:30.123Z",
        "2026-11-20T08:15:30.123+8",
        "2026-11-20T08:15:30.123+08:",
        "2026-11-20X08:15:30.123Z",
        "２０２６-11-20T08:15:30.123Z",
        "not a time",
    ])
    func refusesMalformed(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    // MARK: Dates and arithmetic

    @Test func dateConversionDropsSubMilliseconds() {
        #expect(Timestamp(Date(timeIntervalSince1970: 1.2349)).milliseconds == 1234)
        #expect(Timestamp(Date(timeIntervalSince1970: -0.0005)).milliseconds == -1)
        #expect(Timestamp(milliseconds: 1_795_162_530_123).date == Date(timeIntervalSince1970: 1_795_162_530.123))
    }

    @Test func addingAndComparing() {
        let start = Timestamp(milliseconds: 1000)
        #expect(start.adding(milliseconds: 1).milliseconds == 1001)
        #expect(start.adding(milliseconds: -2000).milliseconds == -1000)
        #expect(start < start.adding(milliseconds: 1))
        #expect(!(start < start))
        #expect([Timestamp(milliseconds: 3), Timestamp(milliseconds: -1), Timestamp(milliseconds: 2)].sorted()
            == [Timestamp(milliseconds: -1), Timestamp(milliseconds: 2), Timestamp(milliseconds: 3)])
    }

    // MARK: Codable

    @Test func encodesAsISO8601String() throws {
        let data = try JSONEncoder().encode([Timestamp(milliseconds: 1_795_162_530_123)])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-11-20T08:15:30.123Z"]"#)
    }

    @Test func codableRoundTrip() throws {
        var generator = SeededRandomNumberGenerator(seed: 7)
        let values = (0..<200).map { _ in
            Timestamp(milliseconds: Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator))
        }
        let decoded = try JSONDecoder().decode([Timestamp].self, from: JSONEncoder().encode(values))
        #expect(decoded == values)
    }

    @Test func decodesOffsets() throws {
        let decoded = try JSONDecoder().decode([Timestamp].self, from: Data(#"["2026-11-20T16:15:30.123+08:00"]"#.utf8))
        #expect(decoded == [Timestamp(milliseconds: 1_795_162_530_123)])
    }

    @Test("Decoding refuses what isn't an ISO 8601 string", arguments: [
        #"["2026-11-20"]"#, #"[1795162530123]"#, #"[null]"#, #"["yesterday"]"#,
    ])
    func decodingRefusesMalformed(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Timestamp].self, from: Data(json.utf8))
        }
    }
}
