import CloudKitModel
import Foundation

/// The fields of one store key (an account's database) whose keys (`QueryKey`) the store
/// keeps beside its records: those a query has named, by record type, as CloudKit keeps
/// indexes only for fields its schema marks queryable. A store never queried keeps none, so
/// a save writes what it wrote before queries were served in SQL.
///
/// The first query that names a field marks it and stores the keys of the records already
/// saved (the store's fill, `QueryableFill`, a batch at a time; the mark is committed first,
/// not `ready`, and is ready once the fill is done); every save after the mark, ready or
/// not, keeps them, so a query (which waits for the fill, or is answered
/// `QueryableFills.StillFilling`) never meets a record whose key is missing. A mark is never
/// taken back.
///
/// A store key holds at most `maximumMarks` marks, whether or not their record type has
/// records yet: a query that would mark more is refused (`LimitReached`, which the web
/// services answer as `BAD_REQUEST` naming the limit), so one account cannot add marks (and
/// the scan of its records each new one costs) without end.
public struct QueryableFields: Sendable, Equatable {
    /// The most marks (record type, field name) one store key holds. A query names at most
    /// 24 fields (16 filters, 8 sorts), so any one query fits a store never queried; IdeaBox
    /// itself names a handful; and the worst one account can make its store do is 64 scans
    /// of its own records, each of which its record quota bounds.
    public static let maximumMarks = 64

    /// A query would have made a store key hold more than `maximumMarks` marks.
    public struct LimitReached: Error, Equatable, Sendable {
        /// The limit, `maximumMarks`.
        public var maximum: Int
        /// The fields of the query's record type it named that were not marked.
        public var unmarked: [String]

        public init(maximum: Int = QueryableFields.maximumMarks, unmarked: some Sequence<String>) {
            self.maximum = maximum
            self.unmarked = unmarked.sorted()
        }
    }

    /// The marked field names, by record type.
    public private(set) var byType: [String: Set<String>] = [:]

    /// The marks `pairs` (record type, field name).
    public init(_ pairs: some Sequence<(recordType: String, fieldName: String)> = []) {
        for (recordType, fieldName) in pairs { byType[recordType, default: []].insert(fieldName) }
    }

    /// Whether no field of any type is marked: a save then writes and deletes no key.
    public var isEmpty: Bool { byType.isEmpty }

    /// How many (record type, field name) marks there are.
    public var count: Int { byType.values.reduce(0) { $0 + $1.count } }

    /// Throws `LimitReached` unless marking `fieldNames` of `recordType` too keeps the
    /// count within `maximumMarks`; returns the names not marked yet.
    public func admitting(_ fieldNames: Set<String>, of recordType: String) throws -> Set<String> {
        let unmarked = fieldNames.subtracting(fields(of: recordType))
        guard count + unmarked.count <= Self.maximumMarks else { throw LimitReached(unmarked: unmarked) }
        return unmarked
    }

    /// The marked fields of `recordType`.
    public func fields(of recordType: String) -> Set<String> { byType[recordType] ?? [] }

    /// The keys a store keeps for `fields` of a record of `recordType`: one per marked field.
    public func keys(of fields: [String: FieldValue], recordType: String) -> [(fieldName: String, key: Data)] {
        guard let marked = byType[recordType] else { return [] }
        return fields.compactMap { marked.contains($0.key) ? ($0.key, QueryKey.key($0.value)) : nil }
    }
}

extension StoredQuery {
    /// The record fields the query's filters and sorts name (system fields aside): those
    /// whose keys its SQL reads.
    public var fieldNames: Set<String> {
        Set((filters.map(\.field) + sorts.map(\.field)).compactMap { field in
            if case .field(let name) = field { name } else { nil }
        })
    }
}
