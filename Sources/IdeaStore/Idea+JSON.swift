import IdeaModel

/// An idea as the command line prints it in JSON, written directly into bytes: `export` of
/// 100,000 ideas spent most of its time in `JSONEncoder`. The bytes are exactly those of a
/// `JSONEncoder` with `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes` (a test holds
/// the two to it over random text), so `--json` output did not change.
extension Idea {
    /// The pretty-printed JSON object, keys sorted, each line after the first starting with `indent`.
    public func jsonText(indent: String = "") -> String {
        var bytes: [UInt8] = []
        writeJSON(to: &bytes, indent: indent)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonText(indent:)` to `bytes`.
    public func writeJSON(to bytes: inout [UInt8], indent: String = "") {
        var (id, title, description, deviceId) = (idString, self.title, self.description, self.deviceId)
        id.withUTF8 { id in
            title.withUTF8 { title in
                description.withUTF8 { description in
                    deviceId.withUTF8 { deviceId in
                        IdeaBytes(
                            id: id, title: title, description: description, isCompleted: isCompleted, createdAt: createdAt,
                            updatedAt: updatedAt, deviceId: deviceId, version: version, lastSyncedAt: lastSyncedAt
                        ).writeJSON(to: &bytes, indent: indent)
                    }
                }
            }
        }
    }
}
