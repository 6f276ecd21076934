/// What is wrong in a PostgreSQL URL, in one sentence that never quotes its password.
enum PostgresURLFlaw: Error, Equatable, CustomStringConvertible {
    /// The part of the URL a percent-encoding problem is in.
    enum Part: Equatable, CustomStringConvertible {
        case user, password, host, database, parameterName
        case parameterValue(String)

        var description: String {
            switch self {
            case .user: "user name"
            case .password: "password"
            case .host: "host"
            case .database: "database name"
            case .parameterName: "parameter name"
            case let .parameterValue(name): "value of \(name)"
            }
        }
    }

    case spaceOrControl
    case scheme
    case fragment
    case atAfterHost
    case moreThanOneAt
    case severalHosts
    case unclosedBracket
    case afterBracket
    case unbracketedIPv6
    case unixSocket
    case notIPv6(String)
    case notAHost(String)
    case noHost
    case port(String)
    case sslMode(String)
    case parameterWithoutValue(String)
    case unknownParameter(String)
    case percent(Part)
    case notUTF8(Part)

    var description: String {
        switch self {
        case .spaceOrControl:
            "The PostgreSQL URL holds a space or a control character; write a space in it as %20."
        case .scheme:
            "A PostgreSQL URL starts with postgres:// or postgresql://, as in postgres://USER:PASSWORD@HOST:5432/DATABASE."
        case .fragment:
            "The PostgreSQL URL holds a #, which it may not; write a # in a password or a name as %23."
        case .atAfterHost:
            "The PostgreSQL URL holds an @ after its host; write a /, ? or @ in a user name or password as %2F, %3F or %40."
        case .moreThanOneAt:
            "The PostgreSQL URL holds more than one @; write an @ in a user name or password as %40."
        case .severalHosts:
            "The PostgreSQL URL names several hosts; serve connects to one, so give one HOST[:PORT]."
        case .unclosedBracket:
            "The PostgreSQL URL's IPv6 address has no closing ]; write it as in postgres://USER@[::1]:5432/DATABASE."
        case .afterBracket:
            "In the PostgreSQL URL only :PORT may follow the IPv6 address's ]."
        case .unbracketedIPv6:
            "The PostgreSQL URL's host and port hold more than one colon; an IPv6 address goes in brackets, as in postgres://USER@[::1]:5432/DATABASE."
        case .unixSocket:
            "The PostgreSQL URL names a Unix socket's folder; serve connects over TCP, so name the host PostgreSQL listens on, such as localhost."
        case let .notIPv6(text):
            "The PostgreSQL URL's host \"\(text)\" is not an IPv6 address."
        case let .notAHost(text):
            "The PostgreSQL URL's host \"\(text)\" is not a host name or an IP address."
        case .noHost:
            "The PostgreSQL URL names no host; write it as postgres://USER:PASSWORD@HOST:5432/DATABASE."
        case let .port(text):
            "The PostgreSQL URL's port must be a number from 1 to 65535, not \"\(text)\"."
        case let .sslMode(text):
            "sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not \"\(text)\"."
        case let .parameterWithoutValue(name):
            "The PostgreSQL URL's parameter \"\(name)\" has no value; write \(name)=VALUE."
        case let .unknownParameter(name):
            "The PostgreSQL URL's parameter \"\(name)\" is not one serve takes: it takes sslmode, host, port, user, password and dbname."
        case let .percent(part):
            "The PostgreSQL URL's \(part) holds a % without two hexadecimal digits after it; write a % itself as %25."
        case let .notUTF8(part):
            "The PostgreSQL URL's \(part) is percent-encoded bytes that are not UTF-8 text (or hold a NUL)."
        }
    }
}
