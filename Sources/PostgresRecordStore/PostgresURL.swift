import PostgresNIO

/// A PostgreSQL connection URL as libpq takes it:
/// `postgres[ql]://[USER[:PASSWORD]@]HOST[:PORT][/DATABASE][?PARAMETER=VALUE&…]`, the host a
/// name, an IPv4 address or an IPv6 address in brackets, any part percent-encoded, and the
/// parameters `sslmode` (disable, allow, prefer, require, verify-ca, verify-full), `host`,
/// `port`, `user`, `password` and `dbname`, which replace the parts they name.
///
/// It is read here, by RFC 3986's grammar for this one shape, and not by Foundation's
/// `URLComponents`: in the install build, which leaves out ICU's data, `URLComponents.host`
/// goes through ICU's IDNA and is nil for every URL, so every PostgreSQL URL was refused
/// (issue 58; `URL.host` is not affected).
public struct PostgresURL: Equatable, Sendable {
    /// How the connection uses TLS.
    enum TLSMode: Equatable, Sendable {
        case disable, prefer, require
    }

    var host: String
    var port: Int
    var user: String
    var password: String?
    var database: String?
    var tls: TLSMode
    /// The URL as it was given, each password in it replaced by `***`: for a log.
    public let withoutPassword: String

    /// Reads `text`; throws `PostgresStoreError.invalidURL`, saying what is wrong in it (never
    /// with its password), if it is not a PostgreSQL URL this store can use.
    public init(_ text: String) throws {
        do {
            self = try Self.parse(text)
        } catch {
            throw PostgresStoreError.invalidURL(error.description)
        }
    }

    private init(
        host: String, port: Int, user: String, password: String?, database: String?, tls: TLSMode, withoutPassword: String
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.withoutPassword = withoutPassword
    }

    private static func parse(_ text: String) throws(PostgresURLFlaw) -> PostgresURL {
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) {
            throw .spaceOrControl
        }
        guard let separator = text.firstRange(of: "://") else { throw .scheme }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else { throw .scheme }
        if text.contains("#") { throw .fragment }

        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        // A raw @ past the host means a user name or password that holds a / or ? (which end
        // the host): refused before anything, so that no message quotes a piece of a password.
        if rest[authorityEnd...].contains("@") { throw .atAfterHost }
        var path = rest[authorityEnd...].prefix { $0 != "?" }
        if path.hasPrefix("/") { path = path.dropFirst() }
        var query: Substring = ""
        if let mark = rest[authorityEnd...].firstIndex(of: "?") { query = rest[rest.index(after: mark)...] }

        var hidden: [Range<String.Index>] = []
        var user: String?
        var password: String?
        var hostAndPort = authority
        let ats = authority.indices.filter { authority[$0] == "@" }
        guard ats.count <= 1 else { throw .moreThanOneAt }
        if let at = ats.first {
            let userInfo = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
            let colon = userInfo.firstIndex(of: ":")
            user = try decode(userInfo[..<(colon ?? userInfo.endIndex)], part: .user)
            if let colon {
                let raw = userInfo[userInfo.index(after: colon)...]
                password = try decode(raw, part: .password)
                hidden.append(raw.startIndex..<raw.endIndex)
            }
        }
        var (host, port) = try Self.readHostAndPort(hostAndPort)
        var database = try decode(path, part: .database)
        var tls = TLSMode.prefer

        for pair in query.split(separator: "&") {
            guard let equals = pair.firstIndex(of: "=") else {
                throw .parameterWithoutValue(try decode(pair, part: .parameterName))
            }
            let name = try decode(pair[..<equals], part: .parameterName)
            let raw = pair[pair.index(after: equals)...]
            let value = try decode(raw, part: name == "password" ? .password : .parameterValue(name))
            switch name {
            case "sslmode": tls = try Self.readTLSMode(value)
            case "host": host = try Self.readHost(value, bracketed: false)
            case "port": port = try Self.readPort(value)
            case "user": user = value
            case "password":
                password = value
                hidden.append(raw.startIndex..<raw.endIndex)
            case "dbname": database = value
            default: throw .unknownParameter(name)
            }
        }
        guard let host else { throw .noHost }

        var withoutPassword = ""
        var shown = text.startIndex
        for range in hidden.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            withoutPassword += text[shown..<range.lowerBound] + "***"
            shown = range.upperBound
        }
        withoutPassword += text[shown...]
        return PostgresURL(
            host: host, port: port ?? 5432, user: user.flatMap { $0.isEmpty ? nil : $0 } ?? "postgres",
            password: password.flatMap { $0.isEmpty ? nil : $0 }, database: database.isEmpty ? nil : database, tls: tls,
            withoutPassword: withoutPassword)
    }

    /// `HOST[:PORT]`, `[IPV6][:PORT]` or nothing: the host (nil if none is named) and the port.
    private static func readHostAndPort(_ text: Substring) throws(PostgresURLFlaw) -> (host: String?, port: Int?) {
        if text.contains(",") { throw .severalHosts }
        var hostText = text
        var portText: Substring = ""
        let bracketed = text.hasPrefix("[")
        if bracketed {
            guard let close = text.firstIndex(of: "]") else { throw .unclosedBracket }
            hostText = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .afterBracket }
                portText = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
            if portText.contains(":") { throw .unbracketedIPv6 }
        }
        var host: String?
        if bracketed || !hostText.isEmpty {
            host = try Self.readHost(try decode(hostText, part: .host), bracketed: bracketed)
        }
        // RFC 3986 allows an empty port (`host:/db`): the default one.
        let port = portText.isEmpty ? nil : try Self.readPort(String(portText))
        return (host, port)
    }

    /// A host: a name or an IPv4 address, or (in brackets in the authority, bare in `host=`)
    /// an IPv6 address, with a zone after `%` if any.
    private static func readHost(_ text: String, bracketed: Bool) throws(PostgresURLFlaw) -> String {
        if text.hasPrefix("/") { throw .unixSocket }
        if bracketed || text.contains(":") {
            let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            guard isIPv6(address[0]), address.count == 1 || !address[1].isEmpty else { throw .notIPv6(text) }
            return text
        }
        guard !text.isEmpty else { throw .noHost }
        let allowed: (UInt8) -> Bool = { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): true
            default: false
            }
        }
        guard text.utf8.allSatisfy(allowed) else { throw .notAHost(text) }
        return text
    }

    /// Whether `text` is an IPv6 address as RFC 4291 writes it: eight groups of one to four
    /// hexadecimal digits, one run of them perhaps shortened to `::`, the last two perhaps
    /// written as an IPv4 address.
    static func isIPv6(_ text: Substring) -> Bool {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (number, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                let isLast = number == halves.count - 1 && index == parts.count - 1
                if isLast, isIPv4(part) {
                    groups += 2
                } else if (1...4).contains(part.utf8.count), part.utf8.allSatisfy({ hexValue($0) != nil }) {
                    groups += 1
                } else {
                    return false
                }
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }

    private static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                && Int(part)! <= 255
        }
    }

    private static func readPort(_ text: String) throws(PostgresURLFlaw) -> Int {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let port = Int(text), (1...65_535).contains(port)
        else { throw .port(text) }
        return port
    }

    /// libpq's six modes as the three this store has: `allow` tries TLS as `prefer` does, and
    /// `verify-ca` and `verify-full` are `require`, which checks the server's certificate and name.
    private static func readTLSMode(_ text: String) throws(PostgresURLFlaw) -> TLSMode {
        switch text {
        case "disable": .disable
        case "allow", "prefer": .prefer
        case "require", "verify-ca", "verify-full": .require
        default: throw .sslMode(text)
        }
    }

    /// `text` with each `%XX` replaced by its byte; the bytes must be UTF-8, with no NUL.
    private static func decode(_ text: Substring, part: PostgresURLFlaw.Part) throws(PostgresURLFlaw) -> String {
        guard text.contains("%") else { return String(text) }
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard utf8[index] == UInt8(ascii: "%") else {
                bytes.append(utf8[index])
                index += 1
                continue
            }
            guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) else {
                throw .percent(part)
            }
            bytes.append(high << 4 | low)
            index += 3
        }
        guard !bytes.contains(0), let decoded = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(part) }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The configuration of a pool of connections.
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch self.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The configuration of a single connection.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch self.tls {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
