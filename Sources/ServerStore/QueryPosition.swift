import Foundation

/// A record's place in a query's order: its value of each sort, its name and its zone's
/// name. A page ends at the position of its last record, and the next page starts after
/// it (keyset paging), so that no page reads what an earlier one read.
public struct QueryPosition: Hashable, Sendable {
    /// A record's value of one sort, as the store orders it.
    public enum Value: Hashable, Sendable {
        /// The record has no such field: it comes after every record that has it.
        case missing
        /// The field's `QueryKey`.
        case key(Data)
        /// The record's name (a sort by `recordName`).
        case name(String)
        /// A creation or modification time, in milliseconds.
        case time(Int64)
    }

    /// One value per sort of the query.
    public var values: [Value]
    /// The record's name.
    public var recordName: String
    /// The name of the record's zone.
    public var zoneName: String

    /// The position of the record `recordName` in `zoneName` with sort values `values`.
    public init(values: [Value], recordName: String, zoneName: String) {
        self.values = values
        self.recordName = recordName
        self.zoneName = zoneName
    }

    /// Whether `self` comes before `other` in the order of `sorts`: as the stores' SQL orders
    /// them (keys, names and zone names byte by byte, records without a sort field after
    /// those with it), then by record name, then by zone name.
    public func precedes(_ other: QueryPosition, sorts: [StoredQuery.Sort]) -> Bool {
        for (index, sort) in sorts.enumerated() {
            let order = Self.order(values[index], other.values[index])
            if order != 0 {
                // Missing values come last whichever way the sort goes.
                if values[index] == .missing || other.values[index] == .missing { return order < 0 }
                return sort.ascending ? order < 0 : order > 0
            }
        }
        let names = Self.order(Array(recordName.utf8), Array(other.recordName.utf8))
        if names != 0 { return names < 0 }
        return Array(zoneName.utf8).lexicographicallyPrecedes(Array(other.zoneName.utf8))
    }

    /// -1, 0 or 1: how `a` orders against `b`, missing values last.
    private static func order(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.missing, .missing): 0
        case (.missing, _): 1
        case (_, .missing): -1
        case let (.key(x), .key(y)): order(Array(x), Array(y))
        case let (.name(x), .name(y)): order(Array(x.utf8), Array(y.utf8))
        case let (.time(x), .time(y)): x < y ? -1 : x > y ? 1 : 0
        default: 0
        }
    }

    private static func order(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
    }
}
