import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import ProcessTestSupport
@testable import IdeaSync
import Testing

/// An idea's field stamps on the wire: the `fieldStamps` field, and records without it (an
/// older IdeaBox, a third-party client) read as every field stamped at `updatedAt`.
@Suite struct IdeaRecordTests {
    private static let me = "2f1c0d4e-aaaa-4000-8000-000000000001"
    private static let laptop = "7c1e9a40-bbbb-4000-8000-000000000002"

    private static func idea(updatedAt: Int64, by device: String) -> Idea {
        Idea(
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, title: "Plan", description: "notes",
            isCompleted: true, createdAt: Timestamp(milliseconds: 1_000), updatedAt: Timestamp(milliseconds: updatedAt),
            deviceId: device, version: 3)
    }

    private static func order(_ milliseconds: Int64, _ device: String) -> SyncOrder {
        SyncOrder(timestamp: Timestamp(milliseconds: milliseconds), deviceId: device)
    }

    @Test func stampsOfSeveralDevicesMakeTheRoundTrip() throws {
        let idea = Self.idea(updatedAt: 9_000, by: Self.me)
        let stamps = FieldStamps(
            title: Self.order(9_000, Self.me), description: Self.order(5_000, Self.laptop), isCompleted: Self.order(2_000, "c"))
        let record = IdeaRecord.record(for: .save(idea, stamps), tag: nil)
        #expect(record["fieldStamps"] == .string("9000;5000 \(Self.laptop);2000 c"))
        #expect(IdeaRecord.change(from: record) == .saved(idea, stamps))
    }

    @Test func aRecordWithoutStampsOrWrittenAfterThemReadsAsStampedAtUpdatedAt() throws {
        let idea = Self.idea(updatedAt: 9_000, by: Self.me)
        var record = IdeaRecord.record(for: .save(idea, FieldStamps(all: SyncOrder(idea))), tag: nil)
        record.fields["fieldStamps"] = nil
        #expect(IdeaRecord.change(from: record) == .saved(idea, FieldStamps(all: SyncOrder(idea))))
        // A client that knows nothing of the stamps updated title and updatedAt: its record
        // is newer than every stamp, so all of it is its edit.
        record = IdeaRecord.record(for: .save(idea, FieldStamps(all: SyncOrder(idea))), tag: nil)
        record.fields["title"] = .string("Renamed elsewhere")
        record.fields["updatedAt"] = .timestamp(Timestamp(milliseconds: 12_000))
        record.fields["deviceId"] = .string("web-client")
        guard case let .saved(renamed, stamps)? = IdeaRecord.change(from: record) else {
            Issue.record("not read")
            return
        }
        #expect(renamed.title == "Renamed elsewhere" && stamps == FieldStamps(all: Self.order(12_000, "web-client")))
        for broken in ["", "1;2", "x;1;2", "-5;1;2", "1;2;3;4", "1; ;2"] {
            record.fields["fieldStamps"] = .string(broken)
            guard case let .saved(_, fallback)? = IdeaRecord.change(from: record) else {
                Issue.record("\(broken) not read")
                continue
            }
            #expect(fallback == FieldStamps(all: Self.order(12_000, "web-client")), "\(broken)")
        }
    }

    /// The writer's name travels beside its id; a record without one, or with a name left
    /// behind by an earlier writer, names nobody (the reader says "another device").
    @Test func theWritersNameTravelsWithItsId() throws {
        let idea = Self.idea(updatedAt: 9_000, by: Self.me)
        let names = [Self.me: "desk", Self.laptop: "laptop"]
        let record = IdeaRecord.record(for: .save(idea, FieldStamps(all: SyncOrder(idea))), tag: nil, names: names)
        #expect(record["deviceName"] == .string("\(Self.me) desk"))
        #expect(IdeaRecord.naming(from: record) == DeviceNaming(deviceId: Self.me, name: "desk", namedAt: Timestamp(milliseconds: 9_000)))
        let delete = IdeaRecord.record(for: .delete(ideaId: idea.id, order: Self.order(9_500, Self.laptop)), tag: nil, names: names)
        #expect(IdeaRecord.naming(from: delete)?.name == "laptop")

        let unnamed = IdeaRecord.record(for: .save(idea, FieldStamps(all: SyncOrder(idea))), tag: nil)
        #expect(unnamed["deviceName"] == nil && IdeaRecord.naming(from: unnamed) == nil)
        #expect(IdeaRecord.change(from: unnamed) == IdeaRecord.change(from: record), "a name changes nothing of the idea")
        var leftBehind = record
        leftBehind.fields["deviceId"] = .string(Self.laptop)
        #expect(IdeaRecord.naming(from: leftBehind) == nil, "desk's name is not the laptop's")
        var broken = record
        broken.fields["deviceName"] = .string("\(Self.me) two\nlines")
        #expect(IdeaRecord.naming(from: broken) == nil)
    }

    @Test func anUntouchedSampleTravelsAsOne() throws {
        let sample = SampleIdeas.ideas(in: .english, stampedAt: Timestamp(milliseconds: 50_000))[0]
        let record = IdeaRecord.record(for: .save(sample, FieldStamps(legacy: sample)), tag: nil)
        #expect(record["fieldStamps"] == .string("0;0;0"))
        guard case let .saved(_, stamps)? = IdeaRecord.change(from: record) else {
            Issue.record("not read")
            return
        }
        #expect(stamps.isUntouchedSample)
    }

    /// The stamps cost at most 200 bytes of a record's JSON, even with three writers.
    @Test func theStampsAreSmall() throws {
        let now = TestTime.start.milliseconds
        let idea = Self.idea(updatedAt: now, by: Self.me)
        let stamps = FieldStamps(
            title: Self.order(now, Self.me), description: Self.order(now - 100_000, Self.laptop),
            isCompleted: Self.order(now - 200_000, "dddd0003-0000-4000-8000-000000000000"))
        let text = IdeaRecord.encode(stamps, recordDevice: idea.deviceId)
        let json = #","fieldStamps":{"value":"\#(text)","type":"STRING"}"#
        #expect(json.utf8.count <= 200, "\(json.utf8.count) bytes")
    }

    /// A device id the stamps could not carry back, or a time past the year 9999, makes the
    /// record invalid (skipped and logged), never a clock pushed out of reach.
    @Test func aRecordWithAnUnusableDeviceIdOrTimeIsInvalid() {
        let idea = Self.idea(updatedAt: 9_000, by: Self.me)
        for (field, value) in [
            ("deviceId", FieldValue.string("a;b")), ("deviceId", .string("has space")),
            ("deviceId", .string(String(repeating: "d", count: 129))), ("deviceId", .string("")),
            ("updatedAt", .timestamp(Timestamp(milliseconds: IdeaRecord.latestTime + 1))),
        ] {
            var record = IdeaRecord.record(for: .save(idea, FieldStamps(all: SyncOrder(idea))), tag: nil)
            record.fields[field] = value
            #expect(IdeaRecord.change(from: record) == nil, "\(field) \(value)")
        }
    }
}

