@testable import PostgresRecordStore
import Testing

/// Every form of PostgreSQL URL docs/serve.md and libpq take, read without Foundation's URL
/// parsing (which the install build cannot do), and every refusal in its one sentence.
@Suite struct PostgresURLTests {
    /// What a URL reads as: host, port, user, password, database and TLS.
    struct Reading: Equatable, CustomStringConvertible {
        var host: String
        var port = 5432
        var user = "postgres"
        var password: String?
        var database: String?
        var tls = PostgresURL.TLSMode.prefer

        init(_ host: String, port: Int = 5432, user: String = "postgres", password: String? = nil, database: String? = nil,
             tls: PostgresURL.TLSMode = .prefer) {
            (self.host, self.port, self.user, self.password, self.database, self.tls) = (host, port, user, password, database, tls)
        }

        init(_ url: PostgresURL) {
            self.init(url.host, port: url.port, user: url.user, password: url.password, database: url.database, tls: url.tls)
        }

        var description: String {
            "\(user):\(password ?? "-")@\(host):\(port)/\(database ?? "-") \(tls)"
        }
    }

    static let accepted: [(String, Reading)] = [
        ("postgres://ideabox:pw@127.0.0.1:55436/ideabox", Reading("127.0.0.1", port: 55436, user: "ideabox", password: "pw", database: "ideabox")),
        ("postgresql://ideabox:pw@127.0.0.1:55436/ideabox", Reading("127.0.0.1", port: 55436, user: "ideabox", password: "pw", database: "ideabox")),
        ("POSTGRES://ideabox@db-host/ideabox", Reading("db-host", user: "ideabox", database: "ideabox")),
        ("postgres://ideabox:PASSWORD@db-host:5432/ideabox?sslmode=require",
         Reading("db-host", user: "ideabox", password: "PASSWORD", database: "ideabox", tls: .require)),
        ("postgres://ideabox@localhost/ideabox?sslmode=disable", Reading("localhost", user: "ideabox", database: "ideabox", tls: .disable)),
        ("postgres://ideabox@localhost/ideabox?sslmode=prefer", Reading("localhost", user: "ideabox", database: "ideabox")),
        ("postgres://ideabox@localhost/ideabox?sslmode=allow", Reading("localhost", user: "ideabox", database: "ideabox")),
        ("postgres://ideabox@localhost/ideabox?sslmode=verify-ca", Reading("localhost", user: "ideabox", database: "ideabox", tls: .require)),
        ("postgres://ideabox@localhost/ideabox?sslmode=verify-full", Reading("localhost", user: "ideabox", database: "ideabox", tls: .require)),
        ("postgres://ideabox@127.0.0.1:54329/postgres?sslmode=disable",
         Reading("127.0.0.1", port: 54329, user: "ideabox", database: "postgres", tls: .disable)),
        ("postgres://ideabox:pw@[::1]:5433/ideabox", Reading("::1", port: 5433, user: "ideabox", password: "pw", database: "ideabox")),
        ("postgres://[2001:db8::7]/ideabox", Reading("2001:db8::7", database: "ideabox")),
        ("postgres://[::ffff:192.0.2.1]:6000", Reading("::ffff:192.0.2.1", port: 6000)),
        ("postgres://[fe80::1%25eth0]:5432/x", Reading("fe80::1%eth0", database: "x")),
        ("postgres://[1:2:3:4:5:6:7:8]/x", Reading("1:2:3:4:5:6:7:8", database: "x")),
        ("postgres://ideabox:p%40ss%2Fw%3Ard%25%20%E9%9D%88@db.example.org/ideabox",
         Reading("db.example.org", user: "ideabox", password: "p@ss/w:rd% 靈", database: "ideabox")),
        ("postgres://ideabox:a:b!$&'()*+,;=~@h/d", Reading("h", user: "ideabox", password: "a:b!$&'()*+,;=~", database: "d")),
        ("postgres://ide%61box@h/my%20db", Reading("h", user: "ideabox", database: "my db")),
        ("postgres://ideabox:@h/d", Reading("h", user: "ideabox", database: "d")),
        ("postgres://:pw@h/d", Reading("h", password: "pw", database: "d")),
        ("postgres://h", Reading("h")),
        ("postgres://h/", Reading("h")),
        ("postgres://h:/d", Reading("h", database: "d")),
        ("postgres://h?sslmode=disable", Reading("h", tls: .disable)),
        ("postgres://my_host-1.example:1/d&x", Reading("my_host-1.example", port: 1, database: "d&x")),
        ("postgres://h:65535/d?", Reading("h", port: 65535, database: "d")),
        ("postgres:///ideabox?host=db-host&port=6432&user=u&password=s%26cret&sslmode=require",
         Reading("db-host", port: 6432, user: "u", password: "s&cret", database: "ideabox", tls: .require)),
        ("postgres://h/d?dbname=other&host=::1&&user=ideabox", Reading("::1", user: "ideabox", database: "other")),
    ]

    @Test("Every form libpq and docs/serve.md take is read", arguments: accepted)
    func readsEveryForm(text: String, expected: Reading) throws {
        #expect(Reading(try PostgresURL(text)) == expected)
    }

    static let refused: [(String, String)] = [
        ("mysql://u@h/d", "A PostgreSQL URL starts with postgres:// or postgresql://, as in postgres://USER:PASSWORD@HOST:5432/DATABASE."),
        ("postgres:u@h/d", "A PostgreSQL URL starts with postgres:// or postgresql://, as in postgres://USER:PASSWORD@HOST:5432/DATABASE."),
        ("postgres://u:pa ss@h/d", "The PostgreSQL URL holds a space or a control character; write a space in it as %20."),
        ("postgres://u@h/d\n", "The PostgreSQL URL holds a space or a control character; write a space in it as %20."),
        ("postgres://u:pa#ss@h/d", "The PostgreSQL URL holds a #, which it may not; write a # in a password or a name as %23."),
        ("postgres://u:pa/ss@h/d",
         "The PostgreSQL URL holds an @ after its host; write a /, ? or @ in a user name or password as %2F, %3F or %40."),
        ("postgres://u:pa?ss@h/d",
         "The PostgreSQL URL holds an @ after its host; write a /, ? or @ in a user name or password as %2F, %3F or %40."),
        ("postgres://u:p@ss@h/d", "The PostgreSQL URL holds more than one @; write an @ in a user name or password as %40."),
        ("postgres://u@h1:5432,h2:5433/d", "The PostgreSQL URL names several hosts; serve connects to one, so give one HOST[:PORT]."),
        ("postgres://u@[::1/d", "The PostgreSQL URL's IPv6 address has no closing ]; write it as in postgres://USER@[::1]:5432/DATABASE."),
        ("postgres://u@[::1]5432/d", "In the PostgreSQL URL only :PORT may follow the IPv6 address's ]."),
        ("postgres://u@::1:5432/d",
         "The PostgreSQL URL's host and port hold more than one colon; an IPv6 address goes in brackets, as in postgres://USER@[::1]:5432/DATABASE."),
        ("postgres://u@%2Fvar%2Frun%2Fpostgresql/d",
         "The PostgreSQL URL names a Unix socket's folder; serve connects over TCP, so name the host PostgreSQL listens on, such as localhost."),
        ("postgres:///d?host=/var/run/postgresql",
         "The PostgreSQL URL names a Unix socket's folder; serve connects over TCP, so name the host PostgreSQL listens on, such as localhost."),
        ("postgres://u@[1:2:3]/d", "The PostgreSQL URL's host \"1:2:3\" is not an IPv6 address."),
        ("postgres://u@[1::2::3]/d", "The PostgreSQL URL's host \"1::2::3\" is not an IPv6 address."),
        ("postgres://u@[12345::]/d", "The PostgreSQL URL's host \"12345::\" is not an IPv6 address."),
        ("postgres://u@[1:2:3:4:5:6:7:8:9]/d", "The PostgreSQL URL's host \"1:2:3:4:5:6:7:8:9\" is not an IPv6 address."),
        ("postgres://u@[::ffff:1.2.3.256]/d", "The PostgreSQL URL's host \"::ffff:1.2.3.256\" is not an IPv6 address."),
        ("postgres://u@[127.0.0.1]/d", "The PostgreSQL URL's host \"127.0.0.1\" is not an IPv6 address."),
        ("postgres://u@[fe80::1%25]/d", "The PostgreSQL URL's host \"fe80::1%\" is not an IPv6 address."),
        ("postgres://u@[]/d", "The PostgreSQL URL's host \"\" is not an IPv6 address."),
        ("postgres://u@db!host/d", "The PostgreSQL URL's host \"db!host\" is not a host name or an IP address."),
        ("postgres://u@b%C3%BCro/d", "The PostgreSQL URL's host \"büro\" is not a host name or an IP address."),
        ("postgres://u:pw@/d", "The PostgreSQL URL names no host; write it as postgres://USER:PASSWORD@HOST:5432/DATABASE."),
        ("postgres://", "The PostgreSQL URL names no host; write it as postgres://USER:PASSWORD@HOST:5432/DATABASE."),
        ("postgres://h/d?host=", "The PostgreSQL URL names no host; write it as postgres://USER:PASSWORD@HOST:5432/DATABASE."),
        ("postgres://u@h:abc/d", "The PostgreSQL URL's port must be a number from 1 to 65535, not \"abc\"."),
        ("postgres://u@h:0/d", "The PostgreSQL URL's port must be a number from 1 to 65535, not \"0\"."),
        ("postgres://u@h:65536/d", "The PostgreSQL URL's port must be a number from 1 to 65535, not \"65536\"."),
        ("postgres://u@h:+5432/d", "The PostgreSQL URL's port must be a number from 1 to 65535, not \"+5432\"."),
        ("postgres://u@h/d?port=99999999999999999999", "The PostgreSQL URL's port must be a number from 1 to 65535, not \"99999999999999999999\"."),
        ("postgres://u@h/d?sslmode=on", "sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not \"on\"."),
        ("postgres://u@h/d?sslmode", "The PostgreSQL URL's parameter \"sslmode\" has no value; write sslmode=VALUE."),
        ("postgres://u@h/d?connect_timeout=10",
         "The PostgreSQL URL's parameter \"connect_timeout\" is not one serve takes: it takes sslmode, host, port, user, password and dbname."),
        ("postgres://u:p%4@h/d", "The PostgreSQL URL's password holds a % without two hexadecimal digits after it; write a % itself as %25."),
        ("postgres://u:p%zz@h/d", "The PostgreSQL URL's password holds a % without two hexadecimal digits after it; write a % itself as %25."),
        ("postgres://u%@h/d", "The PostgreSQL URL's user name holds a % without two hexadecimal digits after it; write a % itself as %25."),
        ("postgres://u@h/d%2", "The PostgreSQL URL's database name holds a % without two hexadecimal digits after it; write a % itself as %25."),
        ("postgres://u@h/d?sslmode=%", "The PostgreSQL URL's value of sslmode holds a % without two hexadecimal digits after it; write a % itself as %25."),
        ("postgres://u:%FF@h/d", "The PostgreSQL URL's password is percent-encoded bytes that are not UTF-8 text (or hold a NUL)."),
        ("postgres://u:a%00b@h/d", "The PostgreSQL URL's password is percent-encoded bytes that are not UTF-8 text (or hold a NUL)."),
        ("postgres://u@h/d?password=%C3", "The PostgreSQL URL's password is percent-encoded bytes that are not UTF-8 text (or hold a NUL)."),
    ]

    @Test("A URL that is wrong is refused, saying in one sentence what is wrong", arguments: refused)
    func refusesWhatIsWrong(text: String, message: String) {
        #expect(throws: PostgresStoreError.self) { try PostgresURL(text) }
        do {
            _ = try PostgresURL(text)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test("No refusal quotes the password, wherever it stands")
    func noRefusalQuotesThePassword() {
        for text in ["postgres://u:S3cretPw@h:x/d", "postgres://u:S3cretPw@h/d?password=S3cretPw&x=1",
                     "postgres://u:S3cretPw/@h/d", "postgres://u:S3cretPw?@h/d", "postgres://u:S3cret%Pw@h/d",
                     "postgres://u@h/d?password=S3cret%zzPw", "postgres://u:S3cretPw@h:1/d?sslmode=bad"] {
            do {
                _ = try PostgresURL(text)
                Issue.record("\(text) was taken")
            } catch {
                #expect(!"\(error)".contains("S3cret"), "\(error)")
            }
        }
    }

    @Test("For the log, every password is *** and the rest is the URL as given")
    func theLogShowsNoPassword() throws {
        #expect(try PostgresURL("postgres://ideabox:p%40ss@[::1]:5433/ideabox?sslmode=require").withoutPassword
            == "postgres://ideabox:***@[::1]:5433/ideabox?sslmode=require")
        #expect(try PostgresURL("postgresql://u:pw@h/d?password=other&sslmode=disable").withoutPassword
            == "postgresql://u:***@h/d?password=***&sslmode=disable")
        #expect(try PostgresURL("postgres://ideabox@localhost/ideabox").withoutPassword == "postgres://ideabox@localhost/ideabox")
        #expect(try PostgresURL("postgres://ideabox:@localhost/ideabox").withoutPassword == "postgres://ideabox:@localhost/ideabox")
    }

    @Test("IPv6 addresses as RFC 4291 writes them", arguments: [
        ("::", true), ("::1", true), ("1::", true), ("1:2:3:4:5:6:7::", true), ("::2:3:4:5:6:7:8", true),
        ("1:2:3:4:5:6:1.2.3.4", true), ("::ffff:10.0.0.1", true), ("ABCD:ef01::", true),
        (":::", false), ("1:2:3:4:5:6:7:8::", false), ("1::2:3:4:5:6:7:8", false), (":1::", false), ("1:", false),
        ("1.2.3.4", false), ("::1.2.3", false), ("g::", false), ("1:2:3:4:5:6:7", false), ("::1.2.3.04x", false),
    ])
    func ipv6(text: String, valid: Bool) {
        #expect(PostgresURL.isIPv6(text[...]) == valid)
    }
}
