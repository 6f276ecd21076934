import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// CloudKit Web Services' JSON for records, fields and zones, read and written the same way
/// by `ideabox serve` and by its client.
///
/// Records are `{recordName, recordType, recordChangeTag, fields: {name: {value, type}},
/// created: {timestamp}, modified: {timestamp}, deleted}` as Apple documents them. Field
/// types are CloudKit's only: `STRING`, `INT64`, `DOUBLE`, `TIMESTAMP` in milliseconds,
/// `BYTES` in base64, `ASSETID` (in a save: `{fileChecksum, size, receipt}`) or `ASSET` (in
/// an answer, with its `downloadURL`), `REFERENCE` (`{recordName, zoneID?, action}`),
/// `LOCATION` (`{latitude, longitude, …}`), and the homogeneous `*_LIST` of each. A boolean is
/// an `INT64` 0 or 1.
///
/// Reading is strict where Apple is and lenient where Apple is, because the server reads
/// what any client sends: `type` may be left out (it is inferred from the value), but every
/// name, type and value is checked, and the first problem is reported as `Invalid` with a
/// reason that names where it was.
public enum WebServicesFormat {
    /// A JSON object.
    public typealias Object = JSONValue.Object

    /// Why a JSON value is not what the format allows.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// What was wrong, and where.
        public var reason: String

        /// A problem described by `reason`.
        public init(_ reason: String) {
            self.reason = reason
        }

        public var description: String { reason }
    }

    /// The longest record name, record type, field or zone name, in UTF-8 bytes (CloudKit's).
    public static let maximumNameLength = 255
    /// The most operations a server takes in one request (CloudKit's limit).
    public static let maximumOperations = CloudKitLimits.maximumOperations
    /// The most changes a server sends in one page of zone changes.
    public static let maximumChangesPerPage = 1000

    // MARK: Writing

    /// `{zoneName}`.
    public static func object(_ zone: RecordZoneID) -> JSONValue {
        ["zoneName": .string(zone.zoneName)]
    }

    /// How the records of one answer are written.
    public struct Answer: Sendable {
        /// Whether `INT64` and `DOUBLE` values are written as strings (`numbersAsStrings`).
        public var numbersAsStrings = false
        /// Where a client downloads an asset's bytes: when set, assets go out as `ASSET`
        /// values with a `downloadURL`; when nil, as the `ASSETID` a save sends.
        public var downloadURL: (@Sendable (AssetReference) -> String)?
        /// The record name of the user the answer is for, written in `created` and `modified`.
        public var userRecordName: String?
        /// The device written beside it: the server's own name, as it does not know which
        /// device saved a record (Apple writes `iCloud` for a web service's saves).
        public var deviceID = "ideabox"

        /// Answers written as a save sends its records.
        public init(numbersAsStrings: Bool = false, downloadURL: (@Sendable (AssetReference) -> String)? = nil, userRecordName: String? = nil) {
            self.numbersAsStrings = numbersAsStrings
            self.downloadURL = downloadURL
            self.userRecordName = userRecordName
        }
    }

    /// A record as the server hands it out, with its zone, or as a client saves it.
    public static func object(_ record: RemoteRecord, _ answer: Answer = Answer()) -> Object {
        var object: Object = [
            "recordName": .string(record.recordID.recordName),
            "recordType": .string(record.recordType),
            "fields": .object(record.fields.mapValues { value($0, answer) }),
            "zoneID": object(record.recordID.zoneID),
            "deleted": false,
        ]
        if let changeTag = record.changeTag { object["recordChangeTag"] = .string(changeTag) }
        func stamp(_ time: Timestamp) -> JSONValue {
            var stamp: Object = ["timestamp": .integer(time.milliseconds)]
            if let user = answer.userRecordName {
                stamp["userRecordName"] = .string(user)
                stamp["deviceID"] = .string(answer.deviceID)
            }
            return .object(stamp)
        }
        if let created = record.creationDate { object["created"] = stamp(created) }
        if let modified = record.modificationDate { object["modified"] = stamp(modified) }
        return object
    }

    /// A deleted record as a change fetch reports it.
    public static func object(_ deleted: DeletedRecord) -> Object {
        ["recordName": .string(deleted.recordID.recordName), "recordType": .string(deleted.recordType), "deleted": true]
    }

    /// `{fileChecksum, size, receipt}`: an asset as a save names it.
    public static func object(_ reference: AssetReference) -> JSONValue {
        ["fileChecksum": .string(reference.checksum), "size": .integer(reference.size), "receipt": .string(reference.checksum)]
    }

    /// `{value, type}` for one field value, always of one of CloudKit's types. A list is a
    /// `*_LIST` of its items' one type. A list of mixed or nested items, which only an earlier
    /// remote could have stored (requests refuse them), goes out as a `STRING_LIST` of each
    /// item's `{value, type}` as JSON text, so that no answer carries a type CloudKit lacks.
    public static func value(_ value: FieldValue, _ answer: Answer = Answer()) -> JSONValue {
        if let type = scalarType(value, answer) {
            return ["value": rawValue(value, answer), "type": .string(type.rawValue)]
        }
        guard case .list(let items) = value else { preconditionFailure("only a list has no scalar type") }
        if let type = commonScalarType(items, answer) {
            return ["value": .array(items.map { rawValue($0, answer) }), "type": .string(type.listName)]
        }
        let texts = items.map { JSONValue.string(String(decoding: self.value($0, answer).bytes, as: UTF8.self)) }
        return ["value": .array(texts), "type": .string(FieldType.string.listName)]
    }

    /// The type a scalar goes out as: a record's (`FieldType(of:)`), but an asset is an
    /// `ASSETID` unless the answer carries its download URL. Nil for a list.
    static func scalarType(_ value: FieldValue, _ answer: Answer) -> FieldType? {
        guard let type = FieldType(of: value) else { return nil }
        return type == .asset && answer.downloadURL == nil ? .assetID : type
    }

    /// The type all of `items` share, if they are scalars of one type (an empty list is a
    /// `STRING_LIST`).
    static func commonScalarType(_ items: [FieldValue], _ answer: Answer) -> FieldType? {
        guard let first = items.first else { return .string }
        guard let type = scalarType(first, answer), items.allSatisfy({ scalarType($0, answer) == type }) else { return nil }
        return type
    }

    static func rawValue(_ value: FieldValue, _ answer: Answer) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .int64(let number): answer.numbersAsStrings ? .string(String(number)) : .integer(number)
        case .double(let number) where number.isFinite: answer.numbersAsStrings ? .string("\(number)") : .double(number)
        case .double(let number):
            .string(number.isNaN ? FieldValue.nonFiniteSpelling.nan
                : number < 0 ? FieldValue.nonFiniteSpelling.negativeInfinity : FieldValue.nonFiniteSpelling.positiveInfinity)
        case .timestamp(let time): .integer(time.milliseconds)
        case .bytes(let data): .string(data.base64EncodedString())
        case .asset(let reference):
            if let downloadURL = answer.downloadURL {
                ["fileChecksum": .string(reference.checksum), "size": .integer(reference.size), "downloadURL": .string(downloadURL(reference))]
            } else {
                object(reference)
            }
        case .reference(let reference): object(reference)
        case .location(let location): object(location)
        case .list(let items): .array(items.map { self.value($0, answer) })
        }
    }

    /// Apple's Reference Dictionary: `{recordName, zoneID?, action}`.
    public static func object(_ reference: RecordReference) -> JSONValue {
        var object: Object = ["recordName": .string(reference.recordName), "action": .string(reference.action.rawValue)]
        if let zone = reference.zoneName { object["zoneID"] = ["zoneName": .string(zone)] }
        return .object(object)
    }

    /// Apple's Location Dictionary: `{latitude, longitude}` and each measurement saved with
    /// them (`timestamp` in milliseconds).
    public static func object(_ location: Location) -> JSONValue {
        var object: Object = ["latitude": .double(location.latitude), "longitude": .double(location.longitude)]
        for (name, number) in [
            ("horizontalAccuracy", location.horizontalAccuracy), ("verticalAccuracy", location.verticalAccuracy),
            ("altitude", location.altitude), ("speed", location.speed), ("course", location.course),
        ] {
            if let number { object[name] = .double(number) }
        }
        if let time = location.timestamp { object["timestamp"] = .integer(time.milliseconds) }
        return .object(object)
    }

    // MARK: Reading

    /// The zone id in `{zoneName}`.
    /// The zone id in `{zoneName}`, or the default zone if there is none.
    public static func zoneIDOrDefault(_ json: JSONValue?, at path: @autoclosure () -> String = "zoneID") throws -> RecordZoneID {
        guard let json, json != .null else { return RecordZoneID.defaultZone }
        return try zoneID(json, at: path())
    }

    public static func zoneID(_ json: JSONValue?, at path: @autoclosure () -> String = "zoneID") throws -> RecordZoneID {
        guard let object = json?.object else { throw Invalid("\(path()) must be an object with a zoneName") }
        let name = try string(object["zoneName"], at: "\(path()).zoneName")
        guard isValidName(name, allowing: "_-.") else {
            throw Invalid("\(path()).zoneName must be 1 to \(maximumNameLength) letters, digits, '_', '-' or '.'")
        }
        return RecordZoneID(zoneName: name)
    }

    /// A record name: 1 to 255 bytes of UTF-8 with no control characters.
    public static func recordName(_ json: JSONValue?, at path: @autoclosure () -> String) throws -> String {
        let name = try string(json, at: path())
        guard !name.isEmpty, name.utf8.count <= maximumNameLength,
              !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { throw Invalid("\(path()) must be 1 to \(maximumNameLength) bytes without control characters") }
        return name
    }

    /// A record type or field name: a letter, then letters, digits or '_'.
    public static func typeName(_ json: JSONValue?, at path: @autoclosure () -> String) throws -> String {
        let name = try string(json, at: path())
        guard isValidName(name, allowing: "_"), let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              first != UInt8(ascii: "_")
        else {
            throw Invalid("\(path()) must start with a letter and hold only letters, digits and '_'")
        }
        return name
    }

    /// The record a client sends in a save, or the server sends back: name, type (optional
    /// if `requiresType` is false: an update names only the record), change tag (optional)
    /// and fields; `created`/`modified` are read when present. A field whose value is null is
    /// left out (see `nullFields`).
    public static func record(
        _ json: JSONValue?, zone: RecordZoneID, requiresType: Bool = true, at path: @autoclosure () -> String
    ) throws -> RemoteRecord {
        guard let object = json?.object else { throw Invalid("\(path()) must be an object") }
        let name = try recordName(object["recordName"], at: "\(path()).recordName")
        let type = try requiresType || object["recordType"] != nil ? typeName(object["recordType"], at: "\(path()).recordType") : ""
        let changeTag = try object["recordChangeTag"].map { try string($0, at: "\(path()).recordChangeTag") }
        let fieldObjects = try fieldObjects(object, at: path())
        var fields: [String: FieldValue] = [:]
        for (fieldName, value) in fieldObjects where !isNull(value) {
            fields[try typeName(.string(fieldName), at: "\(path()).fields name")] = try fieldValue(value, at: "\(path()).fields.\(fieldName)")
        }
        return RemoteRecord(
            recordType: type, recordID: RecordID(recordName: name, zoneID: zone), fields: fields, changeTag: changeTag,
            creationDate: try object["created"].map { try timestampObject($0, at: "\(path()).created") },
            modificationDate: try object["modified"].map { try timestampObject($0, at: "\(path()).modified") })
    }

    /// The fields a record in a save sets to null (`{"value": null}` or `null`): an update
    /// clears them.
    public static func nullFields(_ json: JSONValue?) -> Set<String> {
        guard let object = json?.object, let fields = object["fields"]?.object else { return [] }
        return Set(fields.filter { isNull($0.value) }.keys)
    }

    private static func fieldObjects(_ record: Object, at path: String) throws -> Object {
        switch record["fields"] {
        case nil, .null?: return [:]
        case let .object(fields)?: return fields
        default: throw Invalid("\(path).fields must be an object")
        }
    }

    private static func isNull(_ field: JSONValue) -> Bool {
        field == .null || field.object?["value"] == .null
    }

    /// One `{value, type}` field; `type` may be left out, and is then what the value is: a
    /// string `STRING`, a whole number `INT64`, another number `DOUBLE`, `true`/`false`
    /// `INT64` 1/0, `{fileChecksum, size}` `ASSETID`, an array the list of its items' one type.
    public static func fieldValue(_ json: JSONValue?, at path: @autoclosure () -> String) throws -> FieldValue {
        guard let object = json?.object, let value = object["value"] else {
            throw Invalid("\(path()) must be an object with a value")
        }
        let type = try object["type"].map { try string($0, at: "\(path()).type") } ?? inferredType(value, at: path())
        if let itemType = FieldType.itemName(ofList: type) {
            guard let items = value.array else { throw Invalid("\(path()).value must be an array") }
            return .list(try items.enumerated().map { try scalar($1, type: itemType, at: "\(path()).value[\($0)]") })
        }
        return try scalar(value, type: type, at: "\(path()).value")
    }

    /// The type of a field sent without one.
    private static func inferredType(_ value: JSONValue, at path: @autoclosure () -> String) throws -> String {
        switch value {
        case .array(let items):
            let types = try Set(items.enumerated().map { try inferredType($1, at: "\(path()).value[\($0)]") })
            guard types.count <= 1, types.first.map(FieldType.isList) != true else {
                throw Invalid("\(path()).value: a list's items must all be of one type, and not lists")
            }
            return (types.first ?? FieldType.string.rawValue) + FieldType.listSuffix
        default:
            return try scalarType(of: value, at: path()).rawValue
        }
    }

    private static func scalarType(of value: JSONValue, at path: @autoclosure () -> String) throws -> FieldType {
        switch value {
        case .string: return .string
        case .integer, .bool: return .int64
        case .double: return .double
        case .object(let object) where object["fileChecksum"] != nil: return .assetID
        case .object(let object) where object["recordName"] != nil: return .reference
        case .object(let object) where object["latitude"] != nil: return .location
        default: throw Invalid("\(path()).value: the type of this value cannot be told; send a type")
        }
    }

    private static func scalar(_ value: JSONValue, type: String, at path: @autoclosure () -> String) throws -> FieldValue {
        let decoded: FieldValue? = switch FieldType(rawValue: type) {
        case .string: value.string.map(FieldValue.string)
        // `numbersAsStrings` answers write numbers as strings; a client may send them back so.
        case .int64: (value.wholeNumber ?? value.bool.map { $0 ? 1 : 0 } ?? value.string.flatMap { Int64($0) }).map(FieldValue.int64)
        case .boolean: value.bool.map { FieldValue.int64($0 ? 1 : 0) }
        case .double: double(value).map(FieldValue.double)
        case .timestamp: milliseconds(value).flatMap(timestamp).map(FieldValue.timestamp)
        case .bytes: value.string.flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case .assetID, .asset: assetReference(value).map(FieldValue.asset)
        case .reference: try recordReference(value, at: path()).map(FieldValue.reference)
        case .location: try location(value, at: path()).map(FieldValue.location)
        case nil: throw Invalid("\(path()): unknown field type \(type)")
        }
        guard let decoded else { throw Invalid("\(path()) is not a valid \(type)") }
        return decoded
    }

    /// `{fileChecksum, size}`: a SHA-256 in lower-case hex and a size the remote can store.
    public static func assetReference(_ json: JSONValue) -> AssetReference? {
        guard let object = json.object, let checksum = object["fileChecksum"]?.string, let size = object["size"]?.wholeNumber else {
            return nil
        }
        return AssetReference(checksum: checksum, size: size)
    }

    /// Apple's Reference Dictionary: `recordName` (a valid name), `zoneID` (`{zoneName}`, or
    /// left out for the referencing record's zone) and `action` (`NONE`, `DELETE_SELF` or
    /// `VALIDATE`; left out, as a query's value may, `NONE`). Nil for a value that is no object.
    private static func recordReference(_ value: JSONValue, at path: @autoclosure () -> String) throws -> RecordReference? {
        guard let object = value.object else { return nil }
        let name = try recordName(object["recordName"], at: "\(path()).recordName")
        let zone: String? = switch object["zoneID"] {
        case nil, .null?: nil
        case let json?: try zoneID(json, at: "\(path()).zoneID").zoneName
        }
        let action: RecordReference.Action
        switch object["action"] {
        case nil: action = .none
        case let json?:
            guard let parsed = json.string.flatMap(RecordReference.Action.init(rawValue:)) else {
                throw Invalid("\(path()).action must be NONE, DELETE_SELF or VALIDATE")
            }
            action = parsed
        }
        return RecordReference(recordName: name, zoneName: zone, action: action)
    }

    /// Apple's Location Dictionary: `latitude` and `longitude` (degrees, required) and the
    /// optional `horizontalAccuracy`, `verticalAccuracy`, `altitude`, `speed`, `course` and
    /// `timestamp` (milliseconds). Nil for a value that is no object.
    private static func location(_ value: JSONValue, at path: @autoclosure () -> String) throws -> Location? {
        guard let object = value.object else { return nil }
        let known: Set<String> = ["latitude", "longitude", "horizontalAccuracy", "verticalAccuracy", "altitude", "speed", "course", "timestamp"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) { throw Invalid("\(path()): a location has no \(unknown)") }
        func number(_ key: String) throws -> Double? {
            guard let json = object[key], json != .null else { return nil }
            guard let number = json.number, number.isFinite else { throw Invalid("\(path()).\(key) must be a number") }
            return number
        }
        guard let latitude = try number("latitude"), let longitude = try number("longitude") else {
            throw Invalid("\(path()): a location needs its latitude and longitude")
        }
        let time = try object["timestamp"].flatMap { json -> Timestamp? in
            guard json != .null else { return nil }
            guard let time = milliseconds(json).flatMap(timestamp) else { throw Invalid("\(path()).timestamp must be milliseconds") }
            return time
        }
        guard let location = Location(
            latitude: latitude, longitude: longitude, horizontalAccuracy: try number("horizontalAccuracy"),
            verticalAccuracy: try number("verticalAccuracy"), altitude: try number("altitude"), speed: try number("speed"),
            course: try number("course"), timestamp: time)
        else { throw Invalid("\(path()): latitude must be -90 to 90 and longitude -180 to 180") }
        return location
    }

    /// `{timestamp}` in milliseconds.
    private static func timestampObject(_ json: JSONValue, at path: @autoclosure () -> String) throws -> Timestamp {
        guard let object = json.object, let milliseconds = object["timestamp"].flatMap(milliseconds),
              let time = timestamp(milliseconds)
        else { throw Invalid("\(path()) must be an object with a timestamp in milliseconds") }
        return time
    }

    /// A string at `path`.
    public static func string(_ json: JSONValue?, at path: @autoclosure () -> String) throws -> String {
        guard let text = json?.string else { throw Invalid("\(path()) must be a string") }
        return text
    }

    /// Milliseconds as a client sends them: a whole number, or one with a fraction (`Date()`
    /// in milliseconds, `1795161600123.4568`), taken as the millisecond it falls in: CloudKit
    /// keeps whole milliseconds, and Apple's reference is silent on a fraction.
    private static func milliseconds(_ json: JSONValue) -> Int64? {
        if let whole = json.wholeNumber { return whole }
        guard case .double(let value) = json, value.isFinite, abs(value) < 1e16 else { return nil }
        return Int64(value.rounded(.down))
    }

    /// Milliseconds from year 0001 to year 9999: what ISO 8601 and every store can hold.
    private static func timestamp(_ milliseconds: Int64) -> Timestamp? {
        (-62_135_596_800_000...253_402_300_799_999).contains(milliseconds) ? Timestamp(milliseconds: milliseconds) : nil
    }

    private static func double(_ json: JSONValue) -> Double? {
        switch json {
        case .string(FieldValue.nonFiniteSpelling.positiveInfinity): .infinity
        case .string(FieldValue.nonFiniteSpelling.negativeInfinity): -.infinity
        case .string(FieldValue.nonFiniteSpelling.nan): .nan
        case .string(let text): Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: json.number
        }
    }

    private static func isValidName(_ name: String, allowing extra: StaticString) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= maximumNameLength else { return false }
        let extras = UnsafeBufferPointer(start: extra.utf8Start, count: extra.utf8CodeUnitCount)
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: extras.contains(byte)
            }
        }
    }
}
