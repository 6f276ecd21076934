import Foundation

/// A JSON value exactly as it came over the wire: `true` and `1` stay apart, which the sweep
/// needs to tell a bare boolean from an INT64. Missing keys and indices read as `.null`.
enum ReceivedJSON: Equatable, Sendable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([ReceivedJSON])
    case object([String: ReceivedJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let whole = try? container.decode(Int64.self) {
            self = .integer(whole)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([ReceivedJSON].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: ReceivedJSON].self))
        }
    }

    /// The JSON in `data`, or nil if `data` is not JSON.
    init?(parsing data: Data) {
        guard let json = try? JSONDecoder().decode(ReceivedJSON.self, from: data) else { return nil }
        self = json
    }

    /// The member `key` of an object; `.null` if there is none.
    subscript(key: String) -> ReceivedJSON {
        guard case let .object(members) = self else { return .null }
        return members[key] ?? .null
    }

    /// The item at `index` of an array; `.null` if there is none.
    subscript(index: Int) -> ReceivedJSON {
        guard case let .array(items) = self, items.indices.contains(index) else { return .null }
        return items[index]
    }

    /// The text of a string.
    var string: String? {
        guard case let .string(text) = self else { return nil }
        return text
    }

    /// A whole number (written without a fraction).
    var integer: Int64? {
        guard case let .integer(whole) = self else { return nil }
        return whole
    }

    /// Any number.
    var number: Double? {
        switch self {
        case let .integer(whole): return Double(whole)
        case let .double(number): return number
        default: return nil
        }
    }

    /// A bare `true` or `false`.
    var bool: Bool? {
        guard case let .bool(flag) = self else { return nil }
        return flag
    }

    /// The items of an array.
    var array: [ReceivedJSON]? {
        guard case let .array(items) = self else { return nil }
        return items
    }

    /// The members of an object.
    var object: [String: ReceivedJSON]? {
        guard case let .object(members) = self else { return nil }
        return members
    }

    /// The member names of an object (none for anything else).
    var keys: Set<String> { Set(object.map { Array($0.keys) } ?? []) }

    /// This value as `JSONSerialization` takes it, to send back what the server gave.
    var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case let .bool(flag): return flag
        case let .integer(whole): return Int(whole)
        case let .double(number): return number
        case let .string(text): return text
        case let .array(items): return items.map(\.foundationValue)
        case let .object(members): return members.mapValues(\.foundationValue)
        }
    }

    /// Compact JSON-like text, for failure messages.
    var description: String {
        switch self {
        case .null: return "null"
        case let .bool(flag): return flag ? "true" : "false"
        case let .integer(whole): return String(whole)
        case let .double(number): return String(number)
        case let .string(text): return "\"" + (text.count > 200 ? String(text.prefix(200)) + "…" : text) + "\""
        case let .array(items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case let .object(members):
            return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        }
    }
}

extension ReceivedJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(floatLiteral value: Double) { self = .double(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: ReceivedJSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, ReceivedJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// Case 60 of the conformance list: what no answer of a CloudKit Web Services server may
/// hold, checked on every answer the fixture receives.
///
/// Field types: CloudKit's nine and their homogeneous `_LIST` forms only (no `BOOLEAN`, no
/// `LIST`), each value of the JSON kind its type says, never a bare `true`/`false`. Error
/// dictionaries: one of Apple's fourteen codes with a `reason` (and a `redirectURL` for
/// AUTHENTICATION_REQUIRED); a top-level error also has a `uuid` and comes with Apple's status
/// for its code (405 for a wrong method being ours).
enum ConformanceSweep {
    /// Apple's fourteen error codes with their HTTP statuses (Error Codes page).
    static let errorStatuses: [String: Int] = [
        "ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401, "AUTHENTICATION_REQUIRED": 421,
        "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409, "INTERNAL_ERROR": 500, "NOT_FOUND": 404,
        "QUOTA_EXCEEDED": 413, "THROTTLED": 429, "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412,
        "ZONE_NOT_FOUND": 404,
    ]
    /// The field types an answer may carry, each also as a homogeneous `<type>_LIST`.
    static let fieldTypes: Set<String> = [
        "STRING", "INT64", "DOUBLE", "TIMESTAMP", "BYTES", "REFERENCE", "ASSET", "ASSETID", "LOCATION",
    ]

    /// What is wrong with an answer of HTTP `status` whose body is `body`; empty if nothing.
    /// A successful body that is not JSON (an asset's bytes) is not looked into.
    static func findings(status: Int, body: Data) -> [String] {
        guard let json = ReceivedJSON(parsing: body) else {
            return status >= 400 ? ["the \(status) answer is not a JSON error dictionary"] : []
        }
        var findings = walk(json, at: "$")
        if status >= 400 {
            findings += topLevelErrorFindings(json, status: status)
        } else if json["serverErrorCode"] != .null {
            findings.append("a \(status) answer is an error dictionary: \(json)")
        }
        return findings
    }

    private static func topLevelErrorFindings(_ json: ReceivedJSON, status: Int) -> [String] {
        guard let code = json["serverErrorCode"].string else { return ["the \(status) answer has no serverErrorCode: \(json)"] }
        var findings: [String] = []
        if json["uuid"].string?.isEmpty != false { findings.append("the top-level \(code) error has no uuid") }
        if let expected = errorStatuses[code], expected != status, status != 405 {
            findings.append("\(code) came with HTTP \(status); Apple's status for it is \(expected)")
        }
        return findings
    }

    private static func walk(_ json: ReceivedJSON, at path: String) -> [String] {
        switch json {
        case let .array(items):
            return items.enumerated().flatMap { walk($0.element, at: "\(path)[\($0.offset)]") }
        case let .object(members):
            var findings = errorFindings(members, at: path)
            if let type = members["type"]?.string, type == "BOOLEAN" || type == "LIST" {
                findings.append("\(path): type \(type) is not one of CloudKit's")
            }
            if let fields = members["fields"]?.object {
                for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                    findings += fieldFindings(field, at: "\(path).fields.\(name)")
                }
            }
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                findings += walk(value, at: "\(path).\(key)")
            }
            return findings
        default:
            return []
        }
    }

    private static func errorFindings(_ members: [String: ReceivedJSON], at path: String) -> [String] {
        guard let code = members["serverErrorCode"] else { return [] }
        guard let name = code.string, errorStatuses[name] != nil else {
            return ["\(path): serverErrorCode \(code) is not one of Apple's fourteen"]
        }
        var findings: [String] = []
        if members["reason"]?.string == nil { findings.append("\(path): the \(name) error has no reason") }
        if name == "AUTHENTICATION_REQUIRED", members["redirectURL"]?.string == nil {
            findings.append("\(path): AUTHENTICATION_REQUIRED without a redirectURL")
        }
        return findings
    }

    private static func fieldFindings(_ field: ReceivedJSON, at path: String) -> [String] {
        guard let type = field["type"].string else { return ["\(path): a field without a type: \(field)"] }
        let value = field["value"]
        guard type.hasSuffix("_LIST") else {
            guard fieldTypes.contains(type) else { return ["\(path): type \(type) is not one of CloudKit's"] }
            return valueFindings(value, type: type, at: path)
        }
        let itemType = String(type.dropLast("_LIST".count))
        guard fieldTypes.contains(itemType) else { return ["\(path): type \(type) is not one of CloudKit's"] }
        guard let items = value.array else { return ["\(path): a \(type) whose value is not an array: \(value)"] }
        return items.enumerated().flatMap { valueFindings($0.element, type: itemType, at: "\(path)[\($0.offset)]") }
    }

    /// Whether `value` is of the JSON kind `type` says. INT64, DOUBLE and TIMESTAMP may be
    /// strings of a number, as `numbersAsStrings` asks.
    private static func valueFindings(_ value: ReceivedJSON, type: String, at path: String) -> [String] {
        if let flag = value.bool { return ["\(path): a bare \(flag) is not a CloudKit value (type \(type))"] }
        let fits: Bool
        switch type {
        case "STRING": fits = value.string != nil
        case "INT64", "TIMESTAMP": fits = value.integer != nil || value.string.flatMap { Int64($0) } != nil
        case "DOUBLE": fits = value.number != nil || value.string.flatMap { Double($0) } != nil
        case "BYTES": fits = value.string.flatMap { Data(base64Encoded: $0) } != nil
        case "REFERENCE": fits = value["recordName"].string != nil
        case "LOCATION": fits = value["latitude"].number != nil && value["longitude"].number != nil
        default: fits = value.object != nil  // ASSET, ASSETID
        }
        return fits ? [] : ["\(path): \(value) is not a \(type) value"]
    }
}
