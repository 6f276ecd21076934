import Foundation
import PostgresNIO

/// A PostgreSQL connection URL as libpq takes it:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`.
struct PostgresURL {
    enum TLSMode {
        case disable, prefer, require
    }

    var host: String
    var port: Int
    var user: String
    var password: String?
    var database: String?
    var tls: TLSMode

    init(_ text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let host = components.host, !host.isEmpty
        else {
            throw PostgresStoreError.invalidURL("A PostgreSQL store is postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
        }
        switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        case let mode: throw PostgresStoreError.invalidURL("sslmode must be disable, prefer or require, not \"\(mode)\".")
        }
        let database = String(components.path.drop { $0 == "/" })
        self.host = host
        port = components.port ?? 5432
        user = components.user ?? "postgres"
        password = components.password
        self.database = database.isEmpty ? nil : database
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
