import CloudKitModel
import IdeaBoxFoundation

extension WebServicesFormat {
    /// Appends `record` as `object(record, answer)` is, without building it: a page of a
    /// thousand records built a dictionary for each record, each field and each field's
    /// `{value, type}` only to write them, a third of `serve`'s time for a page of zone
    /// changes (BENCHMARKS.md, "A million through `serve`"). Only the fields `desiredKeys`
    /// names are written (every field when nil). The values themselves are `rawValue`'s, so
    /// both forms follow one set of rules; members come in no particular order, as in
    /// `JSONValue.write`.
    public static func write(_ record: RemoteRecord, desiredKeys: Set<String>? = nil, _ answer: Answer = Answer(), to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"recordName":"#.utf8)
        JSONValue.write(string: record.recordID.recordName, to: &bytes)
        bytes.append(contentsOf: #","recordType":"#.utf8)
        JSONValue.write(string: record.recordType, to: &bytes)
        bytes.append(contentsOf: #","zoneID":{"zoneName":"#.utf8)
        JSONValue.write(string: record.recordID.zoneID.zoneName, to: &bytes)
        bytes.append(contentsOf: #"},"deleted":false"#.utf8)
        if let changeTag = record.changeTag {
            bytes.append(contentsOf: #","recordChangeTag":"#.utf8)
            JSONValue.write(string: changeTag, to: &bytes)
        }
        if let created = record.creationDate {
            bytes.append(contentsOf: #","created":"#.utf8)
            write(stamp: created, answer, to: &bytes)
        }
        if let modified = record.modificationDate {
            bytes.append(contentsOf: #","modified":"#.utf8)
            write(stamp: modified, answer, to: &bytes)
        }
        bytes.append(contentsOf: #","fields":{"#.utf8)
        var first = true
        for (name, value) in record.fields where desiredKeys?.contains(name) ?? true {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.write(string: name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            write(value, answer, to: &bytes)
        }
        bytes.append(contentsOf: "}}".utf8)
    }

    /// Appends `value(value, answer)` without building its `{value, type}`.
    public static func write(_ value: FieldValue, _ answer: Answer = Answer(), to bytes: inout [UInt8]) {
        let type: String
        if let scalar = scalarType(value, answer) {
            bytes.append(contentsOf: #"{"value":"#.utf8)
            rawValue(value, answer).write(to: &bytes)
            type = scalar.rawValue
        } else if case .list(let items) = value, let common = commonScalarType(items, answer) {
            bytes.append(contentsOf: #"{"value":["#.utf8)
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                rawValue(item, answer).write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
            type = common.listName
        } else {
            // A list of mixed or nested items, which only an earlier remote could have stored.
            self.value(value, answer).write(to: &bytes)
            return
        }
        bytes.append(contentsOf: #","type":"#.utf8)
        JSONValue.write(string: type, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// `created` or `modified`: `{timestamp}`, and who saved it when the answer names the user.
    private static func write(stamp time: Timestamp, _ answer: Answer, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"timestamp":"#.utf8)
        bytes.append(contentsOf: String(time.milliseconds).utf8)
        if let user = answer.userRecordName {
            bytes.append(contentsOf: #","userRecordName":"#.utf8)
            JSONValue.write(string: user, to: &bytes)
            bytes.append(contentsOf: #","deviceID":"#.utf8)
            JSONValue.write(string: answer.deviceID, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
