import CloudKitModel
import Foundation

/// The SQL that finds one batch of a query's records in one zone, for SQLite and PostgreSQL
/// alike: over the `record` table and the table of field keys (`QueryKey`, one row per field
/// of each record, indexed by zone, record type, field name, key and record name), ordered
/// as `QueryPosition.precedes` orders positions and starting after a position, so that an
/// index walk reads about what the page returns.
///
/// A sort's first field splits the records in two segments, each read in index order:
/// those with the field (`present`, read from the field keys' index), then those without
/// (`absent`). Filters on fields are `EXISTS` over the field keys. Most comparisons are exact
/// in SQL; the rest (`BEGINS_WITH`, lists, BYTES and ASSET equality, strings longer than a
/// key holds) narrow the records down, `isExact` is false, and `StoredQuery.admits` decides.
public struct QuerySQL: Sendable {
    /// The database the SQL is written for.
    public enum Dialect: Sendable {
        case sqlite, postgres
    }

    /// A value bound to a statement.
    public enum Argument: Sendable, Equatable {
        case blob(Data), text(String), integer(Int64), real(Double)
    }

    /// A statement and its arguments, in order.
    public struct Statement: Sendable {
        /// The SQL text; its columns are the record name, then one value per sort.
        public var sql: String
        /// The values of its parameters.
        public var arguments: [Argument]
    }

    /// A part of a query's order, read with one index.
    public enum Segment: Sendable, Equatable {
        /// Every record of the type (the first sort, if any, is a system field).
        case all
        /// The records that have the field the first sort names.
        case present(String)
        /// The records that do not.
        case absent(String)
    }

    /// The query.
    public let query: StoredQuery
    /// The database.
    public let dialect: Dialect
    /// Whether the SQL admits exactly the records `query.admits`; if not, it admits more
    /// and each must be checked.
    public let isExact: Bool

    /// The SQL of `query` in `dialect`.
    public init(_ query: StoredQuery, dialect: Dialect) {
        self.query = query
        self.dialect = dialect
        let trial = Builder(dialect)
        for filter in query.filters { _ = trial.condition(filter, on: trial.operand(filter.field, driver: nil)) }
        isExact = trial.isExact
    }

    /// The segments to read, in order, each with the position to start after (nil: from
    /// its start).
    public func segments() -> [(segment: Segment, after: QueryPosition?)] {
        guard case .field(let name)? = query.sorts.first?.field else { return [(.all, query.after)] }
        // A record without the field passes no filter on it.
        let absent: [(Segment, QueryPosition?)] = query.filters.contains { $0.field == .field(name) } ? [] : [(.absent(name), nil)]
        switch query.after?.values.first {
        case nil: return [(.present(name), nil)] + absent
        case .missing?: return absent.isEmpty ? [] : [(.absent(name), query.after)]
        default: return [(.present(name), query.after)] + absent
        }
    }

    /// At most `limit` records of `segment` in the zone `zoneRowID` (named `zoneName`)
    /// after `after`, in order.
    public func statement(_ segment: Segment, zoneRowID: Int64, zoneName: String, after: QueryPosition?, limit: Int) -> Statement {
        let sql = Builder(dialect)
        let driver: String? = if case .present(let name) = segment { name } else { nil }
        var columns = [driver == nil ? "r.recordName" : "f0.recordName"]
        // One ordered expression per sort: nil for the first sort of `absent` (missing everywhere).
        var ordered: [(expression: String, ascending: Bool, nullable: Bool)?] = []
        var joins: [String] = []
        for (index, sort) in query.sorts.enumerated() {
            switch sort.field {
            case .field where index == 0 && driver != nil:
                ordered.append(("f0.valueKey", sort.ascending, false))
            case .field where index == 0:
                ordered.append(nil)
            case .field(let name):
                joins.append(
                    "LEFT JOIN recordField s\(index) ON s\(index).zoneId = r.zoneId AND s\(index).recordName = r.recordName AND s\(index).fieldName = \(sql.bind(.text(name)))")
                ordered.append(("s\(index).valueKey", sort.ascending, true))
            case .recordName: ordered.append(("r.recordName", sort.ascending, false))
            case .createdTimestamp: ordered.append(("r.creationDate", sort.ascending, false))
            case .modifiedTimestamp: ordered.append(("r.modificationDate", sort.ascending, false))
            }
            columns.append(ordered.last!?.expression ?? "NULL")
        }
        let from: String
        var conditions: [String] = []
        if let driver {
            from = "recordField f0 JOIN record r ON r.zoneId = f0.zoneId AND r.recordName = f0.recordName"
            conditions += [
                "f0.zoneId = \(sql.bind(.integer(zoneRowID)))", "f0.recordType = \(sql.bind(.text(query.recordType)))",
                "f0.fieldName = \(sql.bind(.text(driver)))",
            ]
        } else {
            from = "record r"
            conditions += ["r.zoneId = \(sql.bind(.integer(zoneRowID)))", "r.recordType = \(sql.bind(.text(query.recordType)))"]
            if case .absent(let name) = segment {
                conditions.append(
                    "NOT EXISTS (SELECT 1 FROM recordField a WHERE a.zoneId = r.zoneId AND a.recordName = r.recordName AND a.fieldName = \(sql.bind(.text(name))))")
            }
        }
        let joined = joins.joined(separator: " ")
        for filter in query.filters {
            conditions.append(sql.condition(filter, on: sql.operand(filter.field, driver: driver)))
        }
        let name = columns[0]
        if let after {
            let components = zip(ordered, after.values).compactMap { component, value in component.map { ($0, value) } }
            conditions += sql.after(components, name: name, position: after, zoneName: zoneName)
        }
        var order: [String] = []
        for component in ordered.compactMap({ $0 }) {
            if component.nullable { order.append("(\(component.expression) IS NULL)") }
            order.append(component.expression + (component.ascending ? "" : " DESC"))
        }
        order.append(name)
        let text = """
            SELECT \(columns.joined(separator: ", ")) FROM \(from) \(joined)
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order.joined(separator: ", ")) LIMIT \(max(0, limit))
            """
        return Statement(sql: sql.rename(text), arguments: sql.arguments)
    }
}

extension QuerySQL {
    /// What a filter compares: a field's key, the record's name, or one of its times.
    enum Operand {
        case key(String), name(String), time(String)
    }

    /// Writes SQL text and collects the arguments it binds, in the order of the text.
    final class Builder {
        let dialect: Dialect
        private(set) var arguments: [Argument] = []
        /// False once a condition admits more than `StoredQuery.admits` does.
        private(set) var isExact = true
        private var existsCount = 0

        init(_ dialect: Dialect) {
            self.dialect = dialect
        }

        /// A parameter holding `argument`.
        func bind(_ argument: Argument) -> String {
            arguments.append(argument)
            switch dialect {
            case .sqlite:
                return "?"
            case .postgres:
                let type = switch argument {
                case .blob: "bytea"
                case .text: "text"
                case .integer: "int8"
                case .real: "float8"
                }
                return "$\(arguments.count)::\(type)"
            }
        }

        /// The SQL names of `text`'s tables and columns in this dialect.
        func rename(_ text: String) -> String {
            guard dialect == .postgres else { return text }
            var renamed = text
            for (from, to) in [
                ("recordField", "record_field"), ("recordName", "record_name"), ("recordType", "record_type"), ("zoneId", "zone_id"),
                ("creationDate", "creation_date"), ("modificationDate", "modification_date"), ("fieldName", "field_name"),
                ("valueKey", "value_key"),
            ] {
                renamed = renamed.replacingOccurrences(of: from, with: to)
            }
            return renamed
        }

        /// What `field` is compared as; `driver` is the field whose keys the segment reads.
        func operand(_ field: StoredQuery.Field, driver: String?) -> Operand {
            switch field {
            case .field(let name) where name == driver: .key("f0.valueKey")
            case .field: .key("x.valueKey")
            case .recordName: .name("r.recordName")
            case .createdTimestamp: .time("r.creationDate")
            case .modifiedTimestamp: .time("r.modificationDate")
            }
        }

        /// The condition a record passes `filter` by. Parameters are bound in the order of
        /// the text (SQLite's are positional).
        func condition(_ filter: StoredQuery.Filter, on operand: Operand) -> String {
            guard case .field(let name) = filter.field, case .key("x.valueKey") = operand else {
                return comparison(filter.comparator, filter.value, on: operand)
            }
            existsCount += 1
            let alias = "x\(existsCount)"
            let head = "EXISTS (SELECT 1 FROM recordField \(alias) WHERE \(alias).zoneId = r.zoneId AND \(alias).recordName = r.recordName AND \(alias).fieldName = \(bind(.text(name)))"
            return "\(head) AND \(comparison(filter.comparator, filter.value, on: .key("\(alias).valueKey"))))"
        }

        private func comparison(_ comparator: StoredQuery.Comparator, _ value: FieldValue, on operand: Operand) -> String {
            switch comparator {
            case .equals: return equal(value, operand)
            case .notEquals: return not { equal(value, operand) }
            case .lessThan: return less(value, operand)
            case .lessThanOrEquals: return any([{ self.less(value, operand) }, { self.equal(value, operand) }])
            case .greaterThan: return greater(value, operand)
            case .greaterThanOrEquals: return any([{ self.greater(value, operand) }, { self.equal(value, operand) }])
            case .in: return member(value, operand)
            case .notIn: return not { member(value, operand) }
            case .beginsWith:
                guard case .string(let prefix) = value else { return "FALSE" }
                isExact = false
                switch operand {
                case .key(let key):
                    let start = Data(QueryKey.string(prefix).key.prefix(1 + QueryKey.stringPrefixLength))
                    return "\(key) >= \(bind(.blob(start))) AND \(key) < \(bind(.blob(QueryKey.successor(of: start))))"
                case .name(let name): return "\(name) >= \(bind(.text(prefix)))"
                case .time: return "FALSE"
                }
            case .notBeginsWith:
                isExact = false
                switch operand {
                case .key(let key): return kind(QueryKey.stringKind, key)
                case .name: return "TRUE"
                case .time: return "FALSE"
                }
            case .listContains, .notListContains, .near:
                // A list or a location has no key to narrow by: the records that hold one are
                // read, and `admits` decides.
                guard case .key(let key) = operand else { return "FALSE" }
                isExact = false
                return "\(key) = \(bind(.blob(QueryKey.unordered)))"
            }
        }

        /// Where `value` and the operand compare equal.
        private func equal(_ value: FieldValue, _ operand: Operand) -> String {
            switch (operand, value) {
            case (.key(let key), _):
                return member(of: [value], key)
            case let (.name(name), .string(text)):
                return "\(name) = \(bind(.text(text)))"
            case (.time(let time), _):
                guard let number = StoredQuery.number(value) else { return "FALSE" }
                return number.isNaN ? "TRUE" : "\(time) = \(bind(.real(number)))"
            default:
                return "FALSE"
            }
        }

        /// Where the operand is less than `value`.
        private func less(_ value: FieldValue, _ operand: Operand) -> String {
            switch (operand, value) {
            case (.key(let key), .int64), (.key(let key), .double), (.key(let key), .timestamp):
                let number = StoredQuery.number(value)!
                return number.isNaN ? "FALSE" : "\(key) >= \(bind(.blob(Data([QueryKey.numberKind])))) AND \(key) < \(bind(.blob(QueryKey.number(number))))"
            case let (.key(key), .string(text)):
                let (bound, isCut) = QueryKey.string(text)
                if isCut { isExact = false }
                return "\(key) >= \(bind(.blob(Data([QueryKey.stringKind])))) AND \(key) \(isCut ? "<=" : "<") \(bind(.blob(bound)))"
            case let (.name(name), .string(text)):
                return "\(name) < \(bind(.text(text)))"
            case (.time(let time), _):
                guard let number = StoredQuery.number(value), !number.isNaN else { return "FALSE" }
                return "\(time) < \(bind(.real(number)))"
            default:
                return "FALSE"
            }
        }

        /// Where the operand is greater than `value`.
        private func greater(_ value: FieldValue, _ operand: Operand) -> String {
            switch (operand, value) {
            case (.key(let key), .int64), (.key(let key), .double), (.key(let key), .timestamp):
                let number = StoredQuery.number(value)!
                return number.isNaN ? "FALSE" : "\(key) > \(bind(.blob(QueryKey.number(number)))) AND \(key) < \(bind(.blob(QueryKey.notANumber)))"
            case let (.key(key), .string(text)):
                let (bound, isCut) = QueryKey.string(text)
                if isCut { isExact = false }
                return "\(key) \(isCut ? ">=" : ">") \(bind(.blob(bound))) AND \(key) < \(bind(.blob(Data([QueryKey.unorderedKind]))))"
            case let (.name(name), .string(text)):
                return "\(name) > \(bind(.text(text)))"
            case (.time(let time), _):
                guard let number = StoredQuery.number(value), !number.isNaN else { return "FALSE" }
                return "\(time) > \(bind(.real(number)))"
            default:
                return "FALSE"
            }
        }

        /// Where the operand equals one of the items of the list `value`.
        private func member(_ value: FieldValue, _ operand: Operand) -> String {
            guard case .list(let items) = value else { return "FALSE" }
            switch operand {
            case .key(let key):
                return member(of: items, key)
            case .name(let name):
                let names = items.compactMap { item in if case .string(let text) = item { text } else { nil } }
                return names.isEmpty ? "FALSE" : "\(name) IN (\(names.map { bind(.text($0)) }.joined(separator: ", ")))"
            case .time(let time):
                let numbers = items.compactMap(StoredQuery.number)
                if numbers.contains(where: \.isNaN) { return "TRUE" }
                return numbers.isEmpty ? "FALSE" : "\(time) IN (\(numbers.map { bind(.real($0)) }.joined(separator: ", ")))"
            }
        }

        /// Where the key `key` equals the key of one of `items` (a NaN equals every number).
        private func member(of items: [FieldValue], _ key: String) -> String {
            var keys: [Data] = []
            var anyNumber = false
            for item in items {
                switch item {
                case .int64, .double, .timestamp:
                    if StoredQuery.number(item)!.isNaN { return kind(QueryKey.numberKind, key) }
                    keys.append(QueryKey.key(item))
                    anyNumber = true
                case .string(let text):
                    let (bound, isCut) = QueryKey.string(text)
                    if isCut { isExact = false }
                    keys.append(bound)
                case .bytes, .asset, .reference, .location:
                    isExact = false
                    keys.append(QueryKey.unordered)
                case .list:
                    continue
                }
            }
            if anyNumber { keys.append(QueryKey.notANumber) }
            let distinct = Array(Set(keys)).sorted { $0.lexicographicallyPrecedes($1) }
            guard !distinct.isEmpty else { return "FALSE" }
            if distinct.count == 1 { return "\(key) = \(bind(.blob(distinct[0])))" }
            return "\(key) IN (\(distinct.map { bind(.blob($0)) }.joined(separator: ", ")))"
        }

        /// Where the key `key` is of the kind `kind`.
        private func kind(_ kind: UInt8, _ key: String) -> String {
            "\(key) >= \(bind(.blob(Data([kind])))) AND \(key) < \(bind(.blob(Data([kind + 1]))))"
        }

        /// The negation of `condition`, if it is exact; otherwise every record with the
        /// field (which `admits` then checks).
        private func not(_ condition: () -> String) -> String {
            let wasExact = isExact
            let bound = arguments.count
            isExact = true
            let inner = condition()
            let exact = isExact
            isExact = wasExact && exact
            guard exact else {
                arguments.removeLast(arguments.count - bound)
                return "TRUE"
            }
            switch inner {
            case "TRUE": return "FALSE"
            case "FALSE": return "TRUE"
            default: return "NOT (\(inner))"
            }
        }

        /// Where any of `conditions` holds; the arguments of those left out of the text are
        /// unbound.
        private func any(_ conditions: [() -> String]) -> String {
            let bound = arguments.count
            let possible = conditions.map { $0() }.filter { $0 != "FALSE" }
            if possible.contains("TRUE") {
                arguments.removeLast(arguments.count - bound)
                return "TRUE"
            }
            return possible.isEmpty ? "FALSE" : "(" + possible.map { "(\($0))" }.joined(separator: " OR ") + ")"
        }

        /// The conditions of the rows after `position` in the zone `zoneName`: by the ordered
        /// `components` and their values there, then by `name`, then by zone name. Each
        /// alternative repeats the equalities before it, bound anew (SQLite's parameters are
        /// positional).
        func after(
            _ components: [((expression: String, ascending: Bool, nullable: Bool), QueryPosition.Value)], name: String,
            position: QueryPosition, zoneName: String
        ) -> [String] {
            func equal(_ index: Int) -> String {
                let (component, value) = components[index]
                return argument(value).map { "\(component.expression) = \(bind($0))" } ?? "\(component.expression) IS NULL"
            }
            var alternatives: [String] = []
            for index in components.indices {
                let (component, value) = components[index]
                guard argument(value) != nil else { continue }
                let earlier = (0..<index).map(equal)
                var later = "\(component.expression) \(component.ascending ? ">" : "<") \(bind(argument(value)!))"
                if component.nullable { later = "(\(later) OR \(component.expression) IS NULL)" }
                alternatives.append((earlier + [later]).joined(separator: " AND "))
            }
            // A record of the same name in a zone that sorts after the position's comes after it.
            let laterZone = Array(position.zoneName.utf8).lexicographicallyPrecedes(Array(zoneName.utf8))
            let earlier = components.indices.map(equal)
            alternatives.append((earlier + ["\(name) \(laterZone ? ">=" : ">") \(bind(.text(position.recordName)))"]).joined(separator: " AND "))
            var conditions = ["(" + alternatives.map { "(\($0))" }.joined(separator: " OR ") + ")"]
            // The same bound on the first component, which an index can start at.
            if let (first, value) = components.first, !first.nullable, let bound = argument(value) {
                conditions.append("\(first.expression) \(first.ascending ? ">=" : "<=") \(bind(bound))")
            } else if components.isEmpty {
                conditions.append("\(name) >= \(bind(.text(position.recordName)))")
            }
            return conditions
        }

        private func argument(_ value: QueryPosition.Value) -> Argument? {
            switch value {
            case .missing: nil
            case .key(let key): .blob(key)
            case .name(let name): .text(name)
            case .time(let time): .integer(time)
            }
        }
    }
}
