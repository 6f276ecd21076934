import CloudKitModel
import Foundation
import IdeaBoxFoundation
import ServerStore

/// Records an earlier server stored before it kept a schema, with a value of every kind, and
/// the schema a store upgraded over them must hold: the types `FieldSchema.typeName` gives
/// their values (`FieldTypeLimits.types`), so that the SQL of a migration is held to it.
enum StoredFieldTypesFixture {
    /// The account, record type, record name and fields of each record, in the order stored.
    static var records: [(account: String, recordType: String, name: String, fields: [String: FieldValue])] {
        let asset = AssetReference(of: Data("a photo".utf8))
        return [
            ("alice", "Photo", "p1", [
                "title": .string("靈感"), "rank": .int64(-9_223_372_036_854_775_808), "score": .double(2.5), "odd": .double(.nan),
                "taken": .timestamp(Timestamp(milliseconds: 1_700_000_000_123)), "thumb": .bytes(Data([0, 255])),
                "file": .asset(asset), "tags": .list([]), "names": .list([.string("a")]),
                "whens": .list([.timestamp(Timestamp(milliseconds: 5))]), "files": .list([.asset(asset)]),
            ]),
            ("alice", "Photo", "p2", ["tags": .list([.string("x")]), "nested": .string(#"{"asset":{"checksum":"x"}}"#)]),
            ("bob", "Photo", "p1", ["title": .bytes(Data("b".utf8))]),
            ("bob", "Note", "n1", ["empty": .list([])]),
        ]
    }

    /// The schema the records give, as `schema(ofAccount:)` lists it ("database recordType.field TYPE").
    static func expected(ofAccount account: String) -> [String] {
        var types: [String: [String: String]] = [:]
        for record in records where record.account == account {
            for (name, type) in FieldTypeLimits.types(of: record.fields) where types[record.recordType]?[name] == nil {
                types[record.recordType, default: [:]][name] = type
            }
        }
        return types.keys.sorted().flatMap { recordType in
            types[recordType]!.keys.sorted().map { "\(account) \(recordType).\($0) \(types[recordType]![$0]!)" }
        }
    }

    /// `entries` as `expected` lists them.
    static func listed(_ entries: [FieldTypeEntry]) -> [String] {
        entries.map { "\($0.database) \($0.recordType).\($0.fieldName) \($0.type)" }
    }
}
