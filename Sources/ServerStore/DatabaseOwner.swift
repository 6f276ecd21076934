/// How the stores name the databases of an account. A store's `account` arguments are
/// these keys: the account's own name for its production database in the server's first
/// container, and `account@…` for each of its other databases. An account name never holds
/// '@' (`AccessToken.isValidAccountName`), so the account a key belongs to is the key up to
/// its first '@', and every key of an account other than its own name starts `account@`.
public enum DatabaseOwner {
    /// The key of `account`'s database in `container` (the server's first container if
    /// `isFirstContainer`), in production or in development.
    ///
    /// Production keeps the keys of the releases before the environments were apart (when
    /// both served production's data): the account's own name in the first container,
    /// `account@container` in another, so a store needs no rewrite. Development's is
    /// `account@container/development`, which no production key can be, as neither an
    /// account name nor a container id holds '/' (`WebServicesPath.isValidContainer`).
    public static func key(account: String, container: String, isFirstContainer: Bool, development: Bool) -> String {
        if development { return "\(account)@\(container)/development" }
        return isFirstContainer ? account : "\(account)@\(container)"
    }

    /// The account whose database `key` names (`key` itself when it is an account's name).
    public static func account(of key: String) -> String {
        String(key.prefix { $0 != "@" })
    }

    /// The keys of `account`'s other databases, as a range of byte-ordered text: from
    /// `account@` up to `accountA` (excluded), as '@' is U+0040 and 'A' U+0041, so that a
    /// store finds them with its index on the key, whatever `account` holds, with no
    /// pattern to escape.
    public static func otherKeys(of account: String) -> (from: String, before: String) {
        (account + "@", account + "A")
    }
}
