import CloudKitModel

/// A query of the records of one type, as a store answers it a page at a time: `records/query`
/// once its request is read. The filters and sorts are applied by the store's SQL (see
/// `QuerySQL`), which continues each page where the last one ended (`after`), so that a page
/// costs what it returns; `admits` is the rule the SQL follows, and what checks the few
/// comparisons SQL can only narrow down (see `QuerySQL.Statement.isExact`).
public struct StoredQuery: Sendable {
    /// What a filter or sort reads: a field, or one of the system fields served.
    public enum Field: Hashable, Sendable {
        case field(String)
        case recordName, createdTimestamp, modifiedTimestamp

        /// The value of this field in `record`, if it has one.
        public func value(of record: RemoteRecord) -> FieldValue? {
            switch self {
            case .field(let name): record.fields[name]
            case .recordName: .string(record.recordID.recordName)
            case .createdTimestamp: record.creationDate.map(FieldValue.timestamp)
            case .modifiedTimestamp: record.modificationDate.map(FieldValue.timestamp)
            }
        }
    }

    /// The comparators served.
    public enum Comparator: String, CaseIterable, Sendable {
        case equals = "EQUALS", notEquals = "NOT_EQUALS"
        case lessThan = "LESS_THAN", lessThanOrEquals = "LESS_THAN_OR_EQUALS"
        case greaterThan = "GREATER_THAN", greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
        case `in` = "IN", notIn = "NOT_IN"
        case beginsWith = "BEGINS_WITH", notBeginsWith = "NOT_BEGINS_WITH"
        case listContains = "LIST_CONTAINS", notListContains = "NOT_LIST_CONTAINS"
        /// A location within `distance` meters of the filter's location.
        case near = "NEAR"
    }

    /// One filter: records whose `field` compares with `value` as `comparator` says.
    public struct Filter: Sendable {
        public var field: Field
        public var comparator: Comparator
        public var value: FieldValue
        /// For `NEAR`: the most meters away a record's location may be.
        public var distance: Double?

        /// The filter on `field`.
        public init(field: Field, comparator: Comparator, value: FieldValue, distance: Double? = nil) {
            self.field = field
            self.comparator = comparator
            self.value = value
            self.distance = distance
        }
    }

    /// One sort: by `field`, ascending or not.
    public struct Sort: Sendable {
        public var field: Field
        public var ascending: Bool

        /// The sort by `field`.
        public init(field: Field, ascending: Bool) {
            self.field = field
            self.ascending = ascending
        }
    }

    /// The record type queried.
    public var recordType: String
    /// The zones searched; a page merges them in the query's order.
    public var zones: [RecordZoneID]
    /// Every filter a record must pass.
    public var filters: [Filter]
    /// The order of the records, then by name (then by zone name); records without a sort
    /// field come after those with it.
    public var sorts: [Sort]
    /// The most records a page holds.
    public var limit: Int
    /// Where the previous page ended, or nil for the first page.
    public var after: QueryPosition?

    /// The query of `recordType` records in `zones`.
    public init(
        recordType: String, zones: [RecordZoneID], filters: [Filter] = [], sorts: [Sort] = [], limit: Int,
        after: QueryPosition? = nil
    ) {
        self.recordType = recordType
        self.zones = zones
        self.filters = filters
        self.sorts = sorts
        self.limit = limit
        self.after = after
    }

    /// Whether `record` is of the type and passes every filter.
    public func admits(_ record: RemoteRecord) -> Bool {
        record.recordType == recordType && filters.allSatisfy { $0.admits(record) }
    }

    /// Whether `position` can continue this query: one value per sort, of the sort's kind.
    public func fits(_ position: QueryPosition) -> Bool {
        position.values.count == sorts.count && zip(sorts, position.values).allSatisfy { sort, value in
            switch (sort.field, value) {
            case (.field, .missing), (.field, .key), (.recordName, .name), (.createdTimestamp, .time), (.modifiedTimestamp, .time): true
            default: false
            }
        }
    }

    /// -1, 0 or 1 for two values of one kind (numbers and timestamps compare as numbers);
    /// nil if they do not compare.
    public static func compare(_ a: FieldValue, _ b: FieldValue) -> Int? {
        func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : x > y ? 1 : 0 }
        switch (a, b) {
        case let (.string(x), .string(y)): return order(x, y)
        case let (.bytes(x), .bytes(y)): return x == y ? 0 : nil
        case let (.asset(x), .asset(y)): return x == y ? 0 : nil
        // A reference is its target: a zone left out matches any (the filter's, or the record's own).
        case let (.reference(x), .reference(y)):
            return x.recordName == y.recordName && (x.zoneName == nil || y.zoneName == nil || x.zoneName == y.zoneName) ? 0 : nil
        case let (.location(x), .location(y)): return x.latitude == y.latitude && x.longitude == y.longitude ? 0 : nil
        default:
            guard let x = number(a), let y = number(b) else { return nil }
            return order(x, y)
        }
    }

    /// A number, an integer or a timestamp as the number it compares as.
    static func number(_ value: FieldValue) -> Double? {
        switch value {
        case .int64(let number): Double(number)
        case .double(let number): number
        case .timestamp(let time): Double(time.milliseconds)
        default: nil
        }
    }
}

extension StoredQuery.Filter {
    /// Whether `record` passes: a record without the field passes no filter.
    public func admits(_ record: RemoteRecord) -> Bool {
        guard let field = field.value(of: record) else { return false }
        let order = { StoredQuery.compare(field, value) }
        switch comparator {
        case .equals: return order() == 0
        case .notEquals: return order() != 0
        case .lessThan: return order().map { $0 < 0 } ?? false
        case .lessThanOrEquals: return order().map { $0 <= 0 } ?? false
        case .greaterThan: return order().map { $0 > 0 } ?? false
        case .greaterThanOrEquals: return order().map { $0 >= 0 } ?? false
        case .in, .notIn:
            guard case .list(let candidates) = value else { return false }
            let found = candidates.contains { StoredQuery.compare(field, $0) == 0 }
            return comparator == .in ? found : !found
        case .beginsWith, .notBeginsWith:
            guard case .string(let text) = field, case .string(let prefix) = value else { return false }
            return text.hasPrefix(prefix) == (comparator == .beginsWith)
        case .listContains, .notListContains:
            guard case .list(let items) = field else { return false }
            let found = items.contains { StoredQuery.compare($0, value) == 0 }
            return comparator == .listContains ? found : !found
        case .near:
            guard case .location(let here) = field, case .location(let center) = value, let distance else { return false }
            return here.distance(to: center) <= distance
        }
    }
}

/// One page of a query's records, and where the next page starts if more follow.
public struct StoredQueryPage: Sendable {
    /// The records, in the query's order.
    public var records: [RemoteRecord]
    /// The position of the last record, if more records follow it.
    public var next: QueryPosition?

    /// A page of `records`, followed by more from `next` if it is set.
    public init(records: [RemoteRecord], next: QueryPosition?) {
        self.records = records
        self.next = next
    }
}
