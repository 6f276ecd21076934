import CloudWebServices
import IdeaBoxFoundation

/// The `users` family: clients call it at start-up. Each account is alone on this server: no
/// other account is discoverable, so a lookup that names the caller's own user record answers
/// its identity, and any other lookup answers only itself (`users/discover`) or nothing (the
/// older `users/lookup/*`), as Apple answers for a user who is not discoverable. No account has
/// an email address or a phone number here, so a lookup by either finds no one, not even the
/// caller; the caller's address book is empty.
extension CloudOperations {
    /// The caller's user identity: `{userRecordName, lookupInfo}` (no name components: the
    /// server knows none).
    var callerIdentity: JSONValue {
        ["userRecordName": .string(userRecordName), "lookupInfo": ["userRecordName": .string(userRecordName)]]
    }

    /// `users/discover`: `lookupInfos[{userRecordName | emailAddress | phoneNumber}]` (Apple's
    /// key; `users`, the key this server read first, too), at most 200, each answered in order
    /// with a user identity `{userRecordName, lookupInfo}` or `{lookupInfo}`; a GET (no body)
    /// answers `users: []`, the caller's address book.
    func discoverUsers(_ body: Object) throws -> Object {
        guard !body.isEmpty else { return ["users": []] }
        let lookups = try Self.lookups(body, keys: ["userRecordName", "emailAddress", "phoneNumber"], listKeys: ["lookupInfos", "users"])
        return ["users": .array(lookups.map { key, value in
            let info: Object = [key: .string(value)]
            guard key == "userRecordName", value == userRecordName else { return ["lookupInfo": .object(info)] }
            return ["userRecordName": .string(userRecordName), "lookupInfo": .object(info)]
        })]
    }

    /// `users/lookup/email` and `users/lookup/id`: `users[{key}]`, answered with the user
    /// dictionaries of the users found, in order: only the caller, by its own record name.
    func lookUpUsers(_ body: Object, by key: String) throws -> Object {
        let lookups = try Self.lookups(body, keys: [key], listKeys: ["users"])
        return ["users": .array(lookups.compactMap { lookupKey, value in
            lookupKey == "userRecordName" && value == userRecordName ? ["userRecordName": .string(userRecordName)] : nil
        })]
    }

    /// The lookups of `body`'s list (the first of `listKeys` it has): each one of `keys`, a string.
    private static func lookups(_ body: Object, keys: [String], listKeys: [String]) throws -> [(key: String, value: String)] {
        let names = listKeys.joined(separator: " or ")
        guard let listKey = listKeys.first(where: { body[$0] != nil }), let list = body[listKey]?.array else {
            throw WebServicesError.badRequest("\(names) must be an array of user lookup dictionaries.")
        }
        guard list.count <= maximumOperations else {
            throw WebServicesError.badRequest("\(listKey) holds at most \(maximumOperations) user lookup dictionaries.")
        }
        return try list.enumerated().map { index, json in
            guard let lookup = json.object, lookup.count == 1, let key = lookup.keys.first, keys.contains(key),
                  let value = lookup[key]?.string
            else {
                throw WebServicesError.badRequest("\(listKey)[\(index)] must hold one of \(keys.joined(separator: ", ")), as a string.")
            }
            return (key, value)
        }
    }
}
