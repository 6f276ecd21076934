import CloudKitModel
@testable import CloudServer
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import Logging
import SQLiteRecordStore
import ServerStore

/// Request bodies through the server's operations (`CloudOperations.perform`, what
/// `DatabaseRoutes` calls once the router has read the path, the token and the body as a
/// JSON object), over an in-memory SQLite store: the router itself is left out, as it needs
/// HummingbirdTesting's connection to run in process. A body that is not a JSON object is
/// what the router refuses before any operation, so it stops there.
///
/// No answer may crash the process; an error is a refusal, as the router answers it.
enum ServerFuzz {
    /// The account the requests act as; in the first container's production database its
    /// owner key is its name.
    static let account = "fuzz"
    /// The container the requests name.
    static let container = "iCloud.com.example.fuzz"
    /// The zone every account has.
    static let zone = RecordZoneID(zoneName: "Ideas")
    /// The store's time: fixed, so that a crash found replays.
    static let clock = WallClock.fixed(Timestamp(milliseconds: 1_750_000_000_000))

    /// A `records/modify` body, against a new store holding the seed records each time.
    static func modify(_ bytes: [UInt8]) {
        guard let body = body(bytes) else { return }
        blocking {
            guard let operations = try? await seededOperations() else { fuzzFailure("the seed store could not be made") }
            _ = try? await operations.perform(.recordsModify, body)
        }
    }

    /// A `records/query` body, against one store seeded once (a query writes nothing); a
    /// continuation marker in its answer is followed once.
    static func query(_ bytes: [UInt8]) {
        guard let body = body(bytes) else { return }
        blocking {
            let operations = operations(shared.store)
            guard let answer = try? await operations.perform(.recordsQuery, body) else { return }
            if let marker = answer["continuationMarker"] {
                var next = body
                next["continuationMarker"] = marker
                _ = try? await operations.perform(.recordsQuery, next)
            }
        }
    }

    /// A body read as `records/changes`, `changes/zone` and `changes/database` (which
    /// write nothing) against one store seeded once.
    static func changes(_ bytes: [UInt8]) {
        guard let body = body(bytes) else { return }
        blocking {
            let operations = operations(shared.store)
            // Each answer written straight from its records says what its object says.
            func check(_ bytes: [UInt8], _ object: JSONValue.Object) {
                let written = try? JSONValue(parsing: bytes), built = try? JSONValue(parsing: JSONValue.object(object).bytes)
                precondition(written != nil && written == built, "written: \(String(decoding: bytes, as: UTF8.self))")
            }
            if let page = try? await operations.recordChanges(body) { check(page.bytes, page.object) }
            if let answer = try? await operations.zonesChanges(body) { check(answer.bytes, answer.object) }
            _ = try? await operations.perform(.changesDatabase, body)
            _ = try? await operations.perform(.zonesChanges, body)
        }
    }

    /// The body as the router reads it: a JSON object, else nothing to send on.
    private static func body(_ bytes: [UInt8]) -> WebServicesFormat.Object? {
        (try? JSONValue(parsing: bytes))?.object
    }

    /// A store made and seeded once, for the operations that only read.
    struct Shared: Sendable {
        /// The seeded store.
        let store: any RecordStore
    }

    /// The store the reading targets share.
    static let shared: Shared = blocking {
        guard let store = try? await seededStore() else { fuzzFailure("the shared seed store could not be made") }
        return Shared(store: store)
    }

    /// The operations of `account` (the fuzzing one unless named) over `store`.
    static func operations(_ store: any RecordStore, account: String = account) -> CloudOperations {
        let hub = ZoneChangeHub(store: store, logger: Logger(label: "ideabox.fuzz"))
        return CloudOperations(
            store: store, owner: account, userRecordName: DatabaseRoutes.userRecordName(account), container: container,
            assetURLs: AssetURLs(base: "http://127.0.0.1:1", secret: Data(repeating: 7, count: 32), tokenHash: nil, clock: clock),
            hub: hub, fieldTypes: FieldTypeCache(), device: nil)
    }

    /// Operations over a new seeded store.
    private static func seededOperations() async throws -> CloudOperations {
        operations(try await seededStore())
    }

    /// A new in-memory store with the account's zone and a few records of each kind of field,
    /// one of them deleted (so changes have a tombstone).
    static func seededStore() async throws -> any RecordStore {
        let store = try SQLiteRecordStore.inMemory(clock: clock, maximumRecordsPerRequest: CloudOperations.maximumOperations)
        try await store.createZone(zone, account: account)
        let operations = operations(store)
        for body in [seedBody, deleteBody] {
            let answer = try await operations.perform(.recordsModify, body)
            if let records = answer["records"]?.array, records.contains(where: { $0.object?["serverErrorCode"] != nil }) {
                fuzzFailure("a seed record was refused: \(String(decoding: JSONValue.object(answer).bytes, as: UTF8.self))")
            }
        }
        return store
    }

    /// The seed records: strings, numbers, times, lists, references, a location and bytes.
    private static let seedBody: WebServicesFormat.Object = [
        "zoneID": ["zoneName": "Ideas"],
        "operations": .array((1...6).map { (index: Int) -> JSONValue in
            [
                "operationType": "create",
                "record": [
                    "recordName": .string("seed-\(index)"), "recordType": .string(index == 6 ? "Note" : "Idea"),
                    "fields": [
                        "title": ["value": .string("Idea \(index)")],
                        "rank": ["value": .integer(Int64(index * 10))],
                        "score": ["value": .double(Double(index) / 3)],
                        "createdAt": ["value": .integer(1_700_000_000_000 + Int64(index)), "type": "TIMESTAMP"],
                        "tags": ["value": ["a", .string("t\(index)")]],
                        "parent": ["value": ["recordName": "seed-1", "action": "NONE"], "type": "REFERENCE"],
                        "place": ["value": ["latitude": 52.5, "longitude": 13.4], "type": "LOCATION"],
                        "blob": ["value": "aGVsbG8=", "type": "BYTES"],
                    ],
                ],
            ]
        }),
    ]

    /// Deletes the fifth seed record.
    private static let deleteBody: WebServicesFormat.Object = [
        "zoneID": ["zoneName": "Ideas"],
        "operations": [["operationType": "forceDelete", "record": ["recordName": "seed-5"]]],
    ]
}
