import CloudKitModel
import Foundation

/// The fields of one store key (an account's database) whose keys (`QueryKey`) the store
/// keeps beside its records: those a query has named, by record type, as CloudKit keeps
/// indexes only for fields its schema marks queryable. A store never queried keeps none, so
/// a save writes what it wrote before queries were served in SQL.
///
/// The first query that names a field marks it and stores the keys of the records already
/// saved (the store's backfill); every save after it keeps them, so a query never meets a
/// record whose key is missing. A mark is never taken back.
public struct QueryableFields: Sendable, Equatable {
    /// The marked field names, by record type.
    public private(set) var byType: [String: Set<String>] = [:]

    /// The marks `pairs` (record type, field name).
    public init(_ pairs: some Sequence<(recordType: String, fieldName: String)> = []) {
        for (recordType, fieldName) in pairs { byType[recordType, default: []].insert(fieldName) }
    }

    /// Whether no field of any type is marked: a save then writes and deletes no key.
    public var isEmpty: Bool { byType.isEmpty }

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
