import CloudKitModel
import CloudWebServices
import IdeaBoxFoundation
import ServerStore

/// A `records/query` query: `{recordType, filterBy[], sortBy[]}`, read strictly (an unknown
/// key, comparator or system field is `BAD_REQUEST`, never ignored) into what the store
/// applies (`StoredQuery`). What one query may ask is bounded, so that its SQL stays small:
/// at most `maximumFilters` filters, `maximumSorts` sorts and `maximumListValues` values in a
/// filter's list; more is `BAD_REQUEST` naming the limit.
struct RecordQuery {
    typealias Object = WebServicesFormat.Object
    typealias Field = StoredQuery.Field
    typealias Comparator = StoredQuery.Comparator

    /// The most filters a query holds.
    static let maximumFilters = 16
    /// The most sorts a query holds.
    static let maximumSorts = 8
    /// The most values in the list of an `IN` or `NOT_IN` filter.
    static let maximumListValues = 1000

    /// Apple's system field names, with the `___` field names that mean the same.
    static let systemFields: [String: Field] = [
        "recordName": .recordName, "createdTimestamp": .createdTimestamp, "modifiedTimestamp": .modifiedTimestamp,
    ]
    static let systemFieldNames: [String: Field] = [
        "___recordId": .recordName, "___createTime": .createdTimestamp, "___modTime": .modifiedTimestamp,
    ]

    var recordType: String
    var filters: [StoredQuery.Filter]
    var sorts: [StoredQuery.Sort]

    /// The query in `json`; throws `WebServicesError.badRequest` naming the first problem.
    init(_ json: JSONValue?) throws {
        guard let query = json?.object else { throw WebServicesError.badRequest("query must be an object with a recordType.") }
        try Self.checkKeys(query, allowed: ["recordType", "filterBy", "sortBy"], at: "query")
        recordType = try WebServicesFormat.typeName(query["recordType"], at: "query.recordType")
        filters = try Self.items(query["filterBy"], at: "query.filterBy", maximum: Self.maximumFilters)
            .enumerated().map { try Self.filter($1, at: "query.filterBy[\($0)]") }
        sorts = try Self.items(query["sortBy"], at: "query.sortBy", maximum: Self.maximumSorts)
            .enumerated().map { try Self.sort($1, at: "query.sortBy[\($0)]") }
    }

    // MARK: Reading

    private static func items(_ json: JSONValue?, at path: String, maximum: Int) throws -> [Object] {
        guard let json, json != .null else { return [] }
        guard let items = json.array, items.count <= maximum else {
            throw WebServicesError.badRequest("\(path) must be an array of at most \(maximum) objects: this server applies at most \(maximum).")
        }
        return try items.enumerated().map { index, item in
            guard let object = item.object else { throw WebServicesError.badRequest("\(path)[\(index)] must be an object.") }
            return object
        }
    }

    private static func filter(_ object: Object, at path: String) throws -> StoredQuery.Filter {
        try checkKeys(object, allowed: ["comparator", "fieldName", "systemFieldName", "fieldValue", "distance"], at: path)
        let name = try WebServicesFormat.string(object["comparator"], at: "\(path).comparator")
        guard let comparator = Comparator(rawValue: name) else {
            throw WebServicesError.badRequest(
                "\(path).comparator \(name) is not served; this server applies \(Comparator.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let field = try field(object, at: path)
        guard object["fieldValue"] != nil else { throw WebServicesError.badRequest("\(path) needs a fieldValue.") }
        if let count = object["fieldValue"]?.object?["value"]?.array?.count, count > maximumListValues {
            throw WebServicesError.badRequest(
                "\(path).fieldValue holds \(count) values; a filter's list holds at most \(maximumListValues).")
        }
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
                throw WebServicesError.badRequest("\(path).fieldValue must be a \(FieldType.string.rawValue) for \(comparator.rawValue).")
            }
        }
        var distance: Double?
        if comparator == .near {
            guard case .location = value else {
                throw WebServicesError.badRequest("\(path).fieldValue must be a \(FieldType.location.rawValue) for NEAR.")
            }
            guard let meters = object["distance"]?.number, meters.isFinite, meters >= 0 else {
                throw WebServicesError.badRequest("\(path).distance must be a number of meters, 0 or more, for NEAR.")
            }
            distance = meters
        } else if object["distance"] != nil {
            throw WebServicesError.badRequest("\(path).distance goes with NEAR only.")
        }
        return StoredQuery.Filter(field: field, comparator: comparator, value: value, distance: distance)
    }

    private static func sort(_ object: Object, at path: String) throws -> StoredQuery.Sort {
        try checkKeys(object, allowed: ["fieldName", "systemFieldName", "ascending"], at: path)
        let ascending: Bool
        switch object["ascending"] {
        case nil: ascending = true
        case .bool(let flag)?: ascending = flag
        default: throw WebServicesError.badRequest("\(path).ascending must be true or false.")
        }
        return StoredQuery.Sort(field: try field(object, at: path), ascending: ascending)
    }

    /// The field a filter or sort names with `fieldName` or `systemFieldName`.
    private static func field(_ object: Object, at path: String) throws -> Field {
        switch (object["fieldName"], object["systemFieldName"]) {
        case let (name?, nil):
            let text = try WebServicesFormat.string(name, at: "\(path).fieldName")
            if let system = systemFieldNames[text] { return system }
            guard !text.hasPrefix("___") else { throw WebServicesError.badRequest("\(path).fieldName \(text) is not served.") }
            do {
                return .field(try WebServicesFormat.typeName(name, at: "\(path).fieldName"))
            } catch let invalid as WebServicesFormat.Invalid {
                throw WebServicesError.badRequest(invalid.reason)
            }
        case let (nil, name?):
            let text = try WebServicesFormat.string(name, at: "\(path).systemFieldName")
            guard let field = systemFields[text] else {
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
