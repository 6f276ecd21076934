import CloudWebServices

/// `users/discover`: clients call it at start-up. Each account is alone on this server: no
/// other account is discoverable, so a lookup that names the caller's own user record
/// answers its identity, and any other lookup answers only itself, as Apple answers for a
/// user who is not discoverable; the caller's address book (GET) is empty.
extension CloudOperations {
    /// `users[{userRecordName | emailAddress | phoneNumber}]`, at most 200, each answered in
    /// order with a user identity `{userRecordName, lookupInfo}` or `{lookupInfo}`; a GET
    /// (no body) answers `users: []`.
    func discoverUsers(_ body: Object) throws -> Object {
        guard let lookups = body["users"] else { return ["users": []] }
        guard let lookups = lookups.array, lookups.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("users must be an array of at most \(Self.maximumOperations) user lookup dictionaries.")
        }
        return ["users": .array(try lookups.enumerated().map { index, json in
            let keys = ["userRecordName", "emailAddress", "phoneNumber"]
            guard let lookup = json.object, lookup.count == 1, let key = lookup.keys.first, keys.contains(key), let value = lookup[key]?.string
            else {
                throw WebServicesError.badRequest("users[\(index)] must hold one of userRecordName, emailAddress or phoneNumber, as a string.")
            }
            let info: Object = [key: .string(value)]
            guard key == "userRecordName", value == userRecordName else { return ["lookupInfo": .object(info)] }
            return ["userRecordName": .string(userRecordName), "lookupInfo": .object(info)]
        })]
    }
}
