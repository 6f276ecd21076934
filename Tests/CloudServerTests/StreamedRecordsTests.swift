@testable import CloudServer
import CloudWebServices
import Foundation
import HTTPTypes
import Hummingbird
import IdeaBoxFoundation
import NIOCore
import Testing

/// Issue 60: `records/lookup` is answered as its records are read, a budget
/// (`PageBudget.byteBudget`) at a time: a lookup of many large records answers every one, in
/// order, and parses; small ones answer the JSON they always did; a read that fails after the
/// answer began cuts it off, never leaving a shorter list that parses.
@Suite("records/lookup is written as it is read", .serialized)
struct StreamedRecordsTests {
    @Test("A lookup of 24 records of 900 KB (about 21 MB) and names that do not exist answers every one in order, written as it is read (no Content-Length)", arguments: ConformanceStore.tested)
    func aLookupOfLargeRecordsAnswersThemAll(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for index in 0..<24 {
            let text = String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: 900_000)
            let saved = try await server.create(String(format: "big%02d", index), ["body": ["value": text]], type: "Photo")
            #expect(saved.isRecord(String(format: "big%02d", index)))
        }
        let names = (0..<24).flatMap { [String(format: "big%02d", $0), "missing\($0)"] }
        let answer = try await server.lookup(names)
        #expect(answer.status == 200)
        #expect(answer.headers[.contentLength] == nil, "an answer of many budgets is not built whole before it is sent")
        let records = answer.records
        #expect(records.count == 48)
        for (index, name) in names.enumerated() where index < records.count {
            if name.hasPrefix("missing") {
                #expect(records[index].isRecordError("NOT_FOUND", recordName: name), "\(records[index])")
            } else {
                let letter = String(Character(UnicodeScalar(UInt8(97 + (index / 2) % 26))))
                #expect(records[index].isRecord(name) && records[index].field("body") == .string(String(repeating: letter, count: 900_000)))
            }
        }
        #expect(server.sweepFindings == [])
    }

    @Test("A lookup of small records answers each as its save did, with desiredKeys, in the order asked, NOT_FOUND for a missing one", arguments: ConformanceStore.tested)
    func aLookupOfSmallRecordsAnswersAsBefore(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        var saved: [String: ReceivedJSON] = [:]
        for name in ["a", "b", "c"] {
            saved[name] = try await server.create(name, ConformanceServer.ideaFields(title: "T \(name)", rank: 3, tags: ["x"]))
        }
        let answer = try await server.lookup(["c", "nobody", "a", "b", "a"])
        #expect(answer.records == [saved["c"]!, answer.records[1], saved["a"]!, saved["b"]!, saved["a"]!])
        #expect(answer.records[1].isRecordError("NOT_FOUND", recordName: "nobody"))
        let keys = try await server.post(
            "records/lookup", ["zoneID": ["zoneName": ConformanceServer.ideas], "records": [["recordName": "a"]], "desiredKeys": ["title"]])
        let fields = keys.records.first?["fields"]
        #expect(fields == .object(["title": ["value": "T a", "type": "STRING"]]), "\(keys)")
        // What fails before the first read is answered with its status, as before.
        let unknownZone = try await server.lookup(["a"], zone: "Nowhere")
        #expect(unknownZone.errorCode == "ZONE_NOT_FOUND" && unknownZone.status >= 400, "\(unknownZone)")
        let bad = try await server.post("records/lookup", ["records": [["recordName": 7]]])
        #expect(bad.isError("BAD_REQUEST", status: 400), "\(bad)")
        #expect(server.sweepFindings == [])
    }

    @Test func aReadThatFailsAfterTheAnswerBeganCutsItOffUnparsable() async throws {
        let streamed = StreamedRecords(first: [.object(["recordName": "a"])]) { write in
            try await write([.object(["recordName": "b"])])
            throw WebServicesError(code: "TRY_AGAIN_LATER", reason: "The store stopped answering.")
        }
        let written = Locked<[UInt8]>([])
        await #expect(throws: WebServicesError.self) { try await streamed.response().body.write(CollectingWriter(written: written)) }
        let bytes = written.withLock { $0 }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"records":[{"recordName":"a"},{"recordName":"b"}"#)
        #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) == nil)

        let whole = StreamedRecords(first: []) { write in try await write([.object(["recordName": "c"])]) }
        written.withLock { $0 = [] }
        try await whole.response().body.write(CollectingWriter(written: written))
        #expect(String(decoding: written.withLock { $0 }, as: UTF8.self) == #"{"records":[{"recordName":"c"}]}"#)
    }
}

/// A connection's body writer that keeps the bytes written.
private struct CollectingWriter: ResponseBodyWriter {
    let written: Locked<[UInt8]>

    mutating func write(_ buffer: ByteBuffer) async throws {
        let bytes = Array(buffer.readableBytesView)
        written.withLock { $0 += bytes }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
