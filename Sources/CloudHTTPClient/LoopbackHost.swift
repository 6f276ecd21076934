import Glibc

/// The hosts that are this machine: plain HTTP to them crosses no network.
public enum LoopbackHost {
    /// Why plain HTTP to another machine is refused.
    public static let plainHTTPReason =
        "plain HTTP to another machine would send the account's token and every idea in clear; "
        + "use https:// (or, on a network you trust, sign in with --allow-insecure-http)"

    /// Whether `host` (a name, an IPv4 address or an IPv6 one, bracketed or not) is in
    /// 127.0.0.0/8, is ::1, or is `localhost`.
    public static func contains(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }
}
