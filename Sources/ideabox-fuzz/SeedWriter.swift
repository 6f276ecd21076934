@testable import AccountEncryption
import CloudKitModel
import CloudWebServices
@testable import CloudServer
import Crypto
import Foundation
import IdeaBoxFoundation

/// The seeds only the project's own writers can make (sealed payloads, envelopes, keyrings,
/// tickets, sealed change tokens), written as files when `IDEABOX_FUZZ_SEEDS` names a
/// folder (`IDEABOX_FUZZ_SEEDS=Fuzz/corpus .build/fuzz/debug/ideabox-fuzz`); each file starts
/// with the byte that picks its target's mode. Nothing here is sealed with the fixed
/// keyring, whose forgeries the `sealed` target looks for.
enum SeedWriter {
    /// Writes the seeds into `folder`'s `sealed` and `token` folders.
    static func write(into folder: URL) throws {
        let fields: [String: FieldValue] = [
            "title": .string("Plant tomatoes"), "rank": .int64(3), "score": .double(0.5), "done": .int64(0),
            "created": .timestamp(Timestamp(milliseconds: 1_750_000_000_000)), "blob": .bytes(Data([0, 1, 2, 255])),
            "tags": .list([.string("garden"), .string("summer")]),
        ]
        let payloads = [
            SealedPayload.encode(name: "idea-1", fields: fields),
            SealedPayload.encode(name: "idea-2", fields: ["title": .string("")]),
            SealedPayload.encode(name: "x", fields: [:]),
            SealedPayload.encode(name: "nested", fields: ["list": .list([.list([.int64(1)]), .double(-0.0)])]),
        ]
        // Another account's keys: what they seal has the right shape but must not open here.
        let other = try KeyEnvelope.make(
            passphrase: "other", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(99))
        let otherSealer = RecordSealer(
            keyring: other.keyring, containerID: SealedFuzz.container, hiddenNameZones: [SealedFuzz.hiddenZone], random: .seeded(98))
        let sealedRecord = otherSealer.seal(
            RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "idea-1", zoneID: SealedFuzz.plainZone), fields: fields))
        guard case .bytes(let sealedBlob)? = sealedRecord.fields[RecordSealer.sealedField] else { return }
        var sealed: [[UInt8]] = []
        sealed += payloads.map { [0] + $0 }
        sealed.append([1] + Array(SealedFuzz.creation.envelope.encoded()))
        sealed.append([1] + Array(other.envelope.encoded()))
        sealed.append([2] + Array(other.keyring.serialized()))
        sealed.append([3] + Array(sealedBlob))
        sealed.append([4] + Array(otherSealer.sealAsset(Data("asset bytes".utf8))))
        sealed += payloads.map { [5] + $0 }
        try write(sealed, to: folder.appendingPathComponent("sealed"), prefix: "seed")

        let ticket = AssetTicket(
            kind: .download, owner: "fuzz", subject: String(repeating: "a", count: 64), expires: Timestamp(milliseconds: 1_800_000_000_000),
            tokenHash: "abc", device: "laptop")
        let otherSecret = SymmetricKey(data: Data(repeating: 1, count: 32))
        var token: [[UInt8]] = []
        token.append([0] + Array(DatabaseToken(zones: ["Ideas": "AAAAAAAAAAE=", "_defaultZone": "AAAAAAAAAAI="]).text.utf8))
        token.append([0] + Array(DatabaseToken().text.utf8))
        token.append([1] + Array(ticket.encoded(secret: otherSecret).utf8))
        token.append([2] + Array("u\nfuzz\n\n1800000000000".utf8))
        token.append([2] + Array("d\nfuzz\n\(String(repeating: "a", count: 64))\n1800000000000\nabc\nlaptop".utf8))
        token.append([2] + Array("w\nfuzz\niCloud.com.example.fuzz\n1800000000000\n\nphone".utf8))
        token.append([3] + Array(Base64URL.encode(Data("hello, tickets".utf8)).utf8))
        token.append([4] + Array(SealedChangeToken.wrap(ChangeToken(data: Data([0, 0, 0, 0, 0, 0, 0, 9])), key: TokenFuzz.keyID).data))
        token.append([5, 0, 0, 0, 0, 0, 0, 0, 3])
        token.append([5] + Array("not a token".utf8))
        try write(token, to: folder.appendingPathComponent("token"), prefix: "seed")
        try write(routerSeeds, to: folder.appendingPathComponent("router"), prefix: "seed")
    }

    /// A request of each operation, as `RouterFuzz` reads it: the operation's index, the
    /// flags (0: the fuzzing account's bearer token, the private database, POST), a body.
    private static var routerSeeds: [[UInt8]] {
        let bodies: [WebServicesPath.Operation: String] = [
            .recordsModify: #"{"zoneID":{"zoneName":"Ideas"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Idea","fields":{"title":{"value":"新的"},"parent":{"value":{"recordName":"seed-1","action":"DELETE_SELF"},"type":"REFERENCE"}}}},{"operationType":"forceDelete","record":{"recordName":"seed-1"}}]}"#,
            .recordsQuery: #"{"zoneID":{"zoneName":"Ideas"},"resultsLimit":2,"query":{"recordType":"Idea","filterBy":[{"fieldName":"rank","comparator":"GREATER_THAN","fieldValue":{"value":10}}],"sortBy":[{"fieldName":"rank","ascending":false}]}}"#,
            .recordsLookup: #"{"zoneID":{"zoneName":"Ideas"},"records":[{"recordName":"seed-1"},{"recordName":"seed-5"}],"desiredKeys":["title"]}"#,
            .changesZone: #"{"zones":[{"zoneID":{"zoneName":"Ideas"},"resultsLimit":2}]}"#,
            .recordsChanges: #"{"zoneID":{"zoneName":"Ideas"},"resultsLimit":3}"#,
            .changesDatabase: #"{"resultsLimit":5}"#,
            .zonesModify: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"More"}}}]}"#,
            .zonesLookup: #"{"zones":[{"zoneName":"Ideas"}]}"#,
            .subscriptionsModify: #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"s1","subscriptionType":"zone","zoneID":{"zoneName":"Ideas"}}}]}"#,
            .usersDiscover: #"{"lookupInfos":[{"userRecordName":"x"}]}"#,
            .tokensRegister: #"{"apnsEnvironment":"production","apnsToken":"abcd"}"#,
            .assetsUpload: #"{"zoneID":{"zoneName":"Ideas"},"tokens":[{"recordName":"seed-1","recordType":"Idea","fieldName":"blob"}]}"#,
        ]
        let operations = WebServicesPath.Operation.allCases
        func seed(_ operation: WebServicesPath.Operation, flags: UInt8, _ body: String) -> [UInt8] {
            [UInt8(operations.firstIndex(of: operation)!), flags] + Array(body.utf8)
        }
        var seeds = operations.map { seed($0, flags: 0, bodies[$0] ?? "{}") }
        seeds.append(seed(.recordsQuery, flags: 0x40, "resultsLimit=1\n{\"query\":{\"recordType\":\"Idea\"}}"))
        seeds.append(seed(.zonesList, flags: 0x10 | 0x01, ""))
        seeds.append(seed(.recordsModify, flags: 0x02, "{}"))
        return seeds
    }

    /// Writes each of `inputs` as `<prefix>-<n>` in `folder`.
    private static func write(_ inputs: [[UInt8]], to folder: URL, prefix: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, input) in inputs.enumerated() {
            try Data(input).write(to: folder.appendingPathComponent("\(prefix)-\(index + 1)"))
        }
    }
}
