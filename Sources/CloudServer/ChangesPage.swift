import CloudKitModel
import CloudWebServices
import IdeaBoxFoundation

/// One zone's page of changes as read: the records changed (only their `desiredKeys`), then
/// those deleted. Written straight from its records (`write(to:)`, `WebServicesFormat.write`):
/// a page of a thousand built a dictionary for each record, field and `{value, type}` only to
/// write them, a third of `serve`'s time in a device's first download. `object` says the same
/// as a JSON object, for the tests and the fuzz target that compare the two.
struct ChangesPage: Sendable {
    var syncToken: String
    var moreComing: Bool
    var changed: [RemoteRecord]
    var deleted: [DeletedRecord]
    var desiredKeys: Set<String>?
    var answer: WebServicesFormat.Answer
    /// Set for `changes/zone`, whose pages name their zone and say nothing of `reverse`; nil for
    /// `records/changes`, whose page says `reverse: false`.
    var zone: RecordZoneID?

    /// The page as a JSON object.
    var object: JSONValue.Object {
        var object: JSONValue.Object = [
            "syncToken": .string(syncToken),
            "moreComing": .bool(moreComing),
            "records": .array(changed.map { CloudOperations.object($0, desiredKeys: desiredKeys, answer) }
                + deleted.map { .object(WebServicesFormat.object($0)) }),
        ]
        if let zone { object["zoneID"] = WebServicesFormat.object(zone) } else { object["reverse"] = false }
        return object
    }

    /// Appends the page's JSON, `object`'s members.
    func write(to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + changed.count * 512 + 128)
        bytes.append(contentsOf: #"{"records":["#.utf8)
        for (index, record) in changed.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            WebServicesFormat.write(record, desiredKeys: desiredKeys, answer, to: &bytes)
        }
        for (index, deletion) in deleted.enumerated() {
            if index > 0 || !changed.isEmpty { bytes.append(UInt8(ascii: ",")) }
            JSONValue.object(WebServicesFormat.object(deletion)).write(to: &bytes)
        }
        bytes.append(contentsOf: #"],"syncToken":"#.utf8)
        JSONValue.write(string: syncToken, to: &bytes)
        bytes.append(contentsOf: #","moreComing":"#.utf8)
        bytes.append(contentsOf: (moreComing ? "true" : "false").utf8)
        if let zone {
            bytes.append(contentsOf: #","zoneID":"#.utf8)
            WebServicesFormat.object(zone).write(to: &bytes)
        } else {
            bytes.append(contentsOf: #","reverse":false"#.utf8)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The page's JSON.
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return bytes
    }
}

/// What `changes/zone` answers: `{zones: [page or failure]}`, or, to the flat form IdeaBox's
/// earlier clients sent, its one page alone.
struct ZoneChangesAnswer: Sendable {
    /// One zone's part of the answer.
    enum Zone: Sendable {
        /// Its page of changes.
        case page(ChangesPage)
        /// `{zoneID, serverErrorCode, reason}`: that zone alone failed.
        case failed(JSONValue.Object)
    }

    /// Whether the answer is its one page alone.
    var flat: Bool
    var zones: [Zone]

    /// The answer as a JSON object.
    var object: JSONValue.Object {
        let objects = zones.map { zone -> JSONValue.Object in
            switch zone {
            case .page(let page): page.object
            case .failed(let failure): failure
            }
        }
        return flat ? objects[0] : ["zones": .array(objects.map(JSONValue.object))]
    }

    /// The answer's JSON, `object`'s members, each page written straight from its records.
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        func write(_ zone: Zone) {
            switch zone {
            case .page(let page): page.write(to: &bytes)
            case .failed(let failure): JSONValue.object(failure).write(to: &bytes)
            }
        }
        if flat {
            write(zones[0])
            return bytes
        }
        bytes.append(contentsOf: #"{"zones":["#.utf8)
        for (index, zone) in zones.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(zone)
        }
        bytes.append(contentsOf: "]}".utf8)
        return bytes
    }
}
