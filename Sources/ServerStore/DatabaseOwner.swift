/// How the stores name the databases of an account. A store's `account` arguments are
/// these keys: the account's own name for its database in the server's first container,
/// and `account@…` for each of its other databases. An account name never holds '@'
/// (`AccessToken.isValidAccountName`), so the account a key belongs to is the key up to
/// its first '@', and every key of an account other than its own name starts `account@`.
public enum DatabaseOwner {
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
