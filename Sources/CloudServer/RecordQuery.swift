import CloudKitModel
import CloudWebServices

/// A `records/query` query: `{recordType, filterBy[], sortBy[]}`, read strictly (an unknown
/// key, comparator or system field is `BAD_REQUEST`, never ignored) and applied to records.
struct RecordQuery {
    typealias Object = WebServicesFormat.Object

    /// One `filterBy` item.
    struct Filter {
        var field: Field
        var comparator: Comparator
        var value: FieldValue
    }

    /// One `sortBy` item.
    struct Sort {
        var field: Field
        var ascending: Bool
    }

    /// What a filter or sort reads: a field, or one of the system fields served.
    enum Field: Equatable {
        case field(String)
        case recordName, createdTimestamp, modifiedTimestamp

        /// Apple's system field names, with the `___` field names that mean the same.
        static let systemFields: [String: Field] = [
            "recordName": .recordName, "createdTimestamp": .createdTimestamp, "modifiedTimestamp": .modifiedTimestamp,
        ]
        static let systemFieldNames: [String: Field] = [
            "___recordId": .recordName, "___createTime": .createdTimestamp, "___modTime": .modifiedTimestamp,
        ]

        func value(of record: RemoteRecord) -> FieldValue? {
            switch self {
            case .field(let name): record.fields[name]
            case .recordName: .string(record.recordID.recordName)
            case .createdTimestamp: record.creationDate.map(FieldValue.timestamp)
            case .modifiedTimestamp: record.modificationDate.map(FieldValue.timestamp)
            }
        }
    }

    /// The comparators served.
    enum Comparator: String, CaseIterable {
        case equals = "EQUALS", notEquals = "NOT_EQUALS"
        case lessThan = "LESS_THAN", lessThanOrEquals = "LESS_THAN_OR_EQUALS"
        case greaterThan = "GREATER_THAN", greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
        case `in` = "IN", notIn = "NOT_IN"
        case beginsWith = "BEGINS_WITH", notBeginsWith = "NOT_BEGINS_WITH"
        case listContains = "LIST_CONTAINS", notListContains = "NOT_LIST_CONTAINS"
    }

    var recordType: String
    var filters: [Filter]
    var sorts: [Sort]

    /// The query in `json`; throws `WebServicesError.badRequest` naming the first problem.
    init(_ json: JSONValue?) throws {
        guard let query = json?.object else { throw WebServicesError.badRequest("query must be an object with a recordType.") }
        try Self.checkKeys(query, allowed: ["recordType", "filterBy", "sortBy"], at: "query")
        recordType = try WebServicesFormat.typeName(query["recordType"], at: "query.recordType")
        filters = try Self.items(query["filterBy"], at: "query.filterBy").enumerated().map { try Self.filter($1, at: "query.filterBy[\($0)]") }
        sorts = try Self.items(query["sortBy"], at: "query.sortBy").enumerated().map { try Self.sort($1, at: "query.sortBy[\($0)]") }
    }

    /// Whether `record` is of the type and passes every filter.
    func admits(_ record: RemoteRecord) -> Bool {
        record.recordType == recordType && filters.allSatisfy { $0.admits(record) }
    }

    /// `records` in the order `sortBy` asks (records without a sort field last), then by name.
    func sorted(_ records: [RemoteRecord]) -> [RemoteRecord] {
        records.sorted { left, right in
            for sort in sorts {
                switch (sort.field.value(of: left), sort.field.value(of: right)) {
                case (nil, nil): continue
                case (nil, _): return false
                case (_, nil): return true
                case let (a?, b?):
                    guard let order = Self.compare(a, b), order != 0 else { continue }
                    return sort.ascending ? order < 0 : order > 0
                }
            }
            return left.recordID.recordName < right.recordID.recordName
        }
    }

    // MARK: Comparing values

    /// -1, 0 or 1 for two values of one kind (numbers and timestamps compare as numbers);
    /// nil if they do not compare.
    static func compare(_ a: FieldValue, _ b: FieldValue) -> Int? {
        func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : x > y ? 1 : 0 }
        switch (a, b) {
        case let (.string(x), .string(y)): return order(x, y)
        case let (.bytes(x), .bytes(y)): return x == y ? 0 : nil
        case let (.asset(x), .asset(y)): return x == y ? 0 : nil
        default:
            guard let x = number(a), let y = number(b) else { return nil }
            return order(x, y)
        }
    }

    private static func number(_ value: FieldValue) -> Double? {
        switch value {
        case .int64(let number): Double(number)
        case .double(let number): number
        case .timestamp(let time): Double(time.milliseconds)
        default: nil
        }
    }

    // MARK: Reading

    private static func items(_ json: JSONValue?, at path: String) throws -> [Object] {
        guard let json, json != .null else { return [] }
        guard let items = json.array, items.count <= WebServicesFormat.maximumOperations else {
            throw WebServicesError.badRequest("\(path) must be an array of at most \(WebServicesFormat.maximumOperations) objects.")
        }
        return try items.enumerated().map { index, item in
            guard let object = item.object else { throw WebServicesError.badRequest("\(path)[\(index)] must be an object.") }
            return object
        }
    }

    private static func filter(_ object: Object, at path: String) throws -> Filter {
        try checkKeys(object, allowed: ["comparator", "fieldName", "systemFieldName", "fieldValue"], at: path)
        let name = try WebServicesFormat.string(object["comparator"], at: "\(path).comparator")
        guard let comparator = Comparator(rawValue: name) else {
            throw WebServicesError.badRequest(
                "\(path).comparator \(name) is not served; this server applies \(Comparator.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let field = try field(object, at: path)
        guard object["fieldValue"] != nil else { throw WebServicesError.badRequest("\(path) needs a fieldValue.") }
        let value: FieldValue
        do {
            value = try WebServicesFormat.fieldValue(object["fieldValue"], at: "\(path).fieldValue")
        } catch let invalid as WebServicesFormat.Invalid {
            throw WebServicesError.badRequest(invalid.reason)
        }
        let isList = if case .list = value { true } else { false }
        if (comparator == .in || comparator == .notIn) != isList {
            throw WebServicesError.badRequest(
                "\(path).fieldValue must be \(isList ? "a single value" : "a list") for \(comparator.rawValue).")
        }
        if comparator == .beginsWith || comparator == .notBeginsWith {
            guard case .string = value else {
                throw WebServicesError.badRequest("\(path).fieldValue must be a STRING for \(comparator.rawValue).")
            }
        }
        return Filter(field: field, comparator: comparator, value: value)
    }

    private static func sort(_ object: Object, at path: String) throws -> Sort {
        try checkKeys(object, allowed: ["fieldName", "systemFieldName", "ascending"], at: path)
        let ascending: Bool
        switch object["ascending"] {
        case nil: ascending = true
        case .bool(let flag)?: ascending = flag
        default: throw WebServicesError.badRequest("\(path).ascending must be true or false.")
        }
        return Sort(field: try field(object, at: path), ascending: ascending)
    }

    /// The field a filter or sort names with `fieldName` or `systemFieldName`.
    private static func field(_ object: Object, at path: String) throws -> Field {
        switch (object["fieldName"], object["systemFieldName"]) {
        case let (name?, nil):
            let text = try WebServicesFormat.string(name, at: "\(path).fieldName")
            if let system = Field.systemFieldNames[text] { return system }
            guard !text.hasPrefix("___") else { throw WebServicesError.badRequest("\(path).fieldName \(text) is not served.") }
            do {
                return .field(try WebServicesFormat.typeName(name, at: "\(path).fieldName"))
            } catch let invalid as WebServicesFormat.Invalid {
                throw WebServicesError.badRequest(invalid.reason)
            }
        case let (nil, name?):
            let text = try WebServicesFormat.string(name, at: "\(path).systemFieldName")
            guard let field = Field.systemFields[text] else {
                throw WebServicesError.badRequest(
                    "\(path).systemFieldName \(text) is not served; this server sorts and filters by recordName, createdTimestamp and modifiedTimestamp.")
            }
            return field
        default:
            throw WebServicesError.badRequest("\(path) needs one of fieldName and systemFieldName.")
        }
    }

    private static func checkKeys(_ object: Object, allowed: Set<String>, at path: String) throws {
        if let unknown = object.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw WebServicesError.badRequest("\(path).\(unknown) is not served; \(path) takes \(allowed.sorted().joined(separator: ", ")).")
        }
    }
}

extension RecordQuery.Filter {
    /// Whether `record` passes: a record without the field passes no filter.
    func admits(_ record: RemoteRecord) -> Bool {
        guard let field = field.value(of: record) else { return false }
        let order = { RecordQuery.compare(field, value) }
        switch comparator {
        case .equals: return order() == 0
        case .notEquals: return order() != 0
        case .lessThan: return order().map { $0 < 0 } ?? false
        case .lessThanOrEquals: return order().map { $0 <= 0 } ?? false
        case .greaterThan: return order().map { $0 > 0 } ?? false
        case .greaterThanOrEquals: return order().map { $0 >= 0 } ?? false
        case .in, .notIn:
            guard case .list(let candidates) = value else { return false }
            let found = candidates.contains { RecordQuery.compare(field, $0) == 0 }
            return comparator == .in ? found : !found
        case .beginsWith, .notBeginsWith:
            guard case .string(let text) = field, case .string(let prefix) = value else { return false }
            return text.hasPrefix(prefix) == (comparator == .beginsWith)
        case .listContains, .notListContains:
            guard case .list(let items) = field else { return false }
            let found = items.contains { RecordQuery.compare($0, value) == 0 }
            return comparator == .listContains ? found : !found
        }
    }
}
