import AsyncHTTPClient
import CloudKitModel
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// The connections the clients of a process share, so that every database talking to one
/// server reuses them. A device needs few (a request and a held long poll): up to 8 per
/// server. A program playing many devices at once (a benchmark) asks for more.
///
/// HTTPS trusts the system's roots, plus the authority a device was given with `--ca-cert`
/// (a self-signed certificate on a home network, say). Pools are made once per setting and
/// kept for the life of the process: an HTTP client must not be dropped while running.
///
/// A program playing many devices gives each group of them a pool of its own (`instance`),
/// as each app has its own: a pool looks through all its connections to a server on every
/// request it sends and every answer it takes, so one pool of ten thousand connections
/// costs each request what a thousand small ones would not.
public final class HTTPConnectionPool: Sendable {
    /// The process's pool: up to 8 connections to each server, the system's roots trusted.
    public static let shared = try! HTTPConnectionPool.with()

    private struct Settings: Hashable {
        var connectionsPerHost: Int
        var trustedAuthority: String?
        var instance: Int
    }

    private static let pools = Mutex<[Settings: HTTPConnectionPool]>([:])

    let client: HTTPClient

    private init(_ settings: Settings) throws {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)), decompression: .disabled)
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: settings.connectionsPerHost)
        // A refused connection fails the request at once, naming the cause: the sync engine
        // has its own retry schedule, and the client's would hold a request until the connect
        // timeout (10 s) with the server long known to be down.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let authority = settings.trustedAuthority {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(try Self.certificates(authority))]
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The pool that keeps up to `connectionsPerHost` connections to each server and, over
    /// HTTPS, trusts the system's roots plus the certificates in `trustedAuthority` (PEM);
    /// pools of the same settings but another `instance` are separate ones. Throws
    /// `untrustedServer` if that text holds no certificate.
    public static func with(connectionsPerHost: Int = 8, trustedAuthority: String? = nil, instance: Int = 0) throws -> HTTPConnectionPool {
        let settings = Settings(connectionsPerHost: connectionsPerHost, trustedAuthority: trustedAuthority, instance: instance)
        return try pools.withLock { pools in
            if let pool = pools[settings] { return pool }
            let pool = try HTTPConnectionPool(settings)
            pools[settings] = pool
            return pool
        }
    }

    /// The certificates in a PEM text; `untrustedServer` if it holds none.
    public static func certificates(_ pem: String) throws -> [NIOSSLCertificate] {
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)), !certificates.isEmpty else {
            throw CloudError.untrustedServer(host: "the server", reason: "the certificate authority given is not a PEM certificate")
        }
        return certificates
    }

    /// How a failed exchange failed to reach its server, or nil if it reached it.
    static func unreachableCause(_ error: any Error) -> UnreachableCause? {
        switch error {
        case let error as IOError:
            return unreachableCause(errno: error.errnoCode)
        case let error as NIOConnectionError:
            let causes = error.connectionErrors.compactMap { unreachableCause($0.error) }
            if let cause = causes.first { return causes.contains(.refused) ? .refused : cause }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return .unknownHost }
            return .refused
        case is SocketAddressError:
            return .unknownHost
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .timedOut
            case .ioOnClosedChannel, .eof, .outputClosed, .alreadyClosed: return .connectionLost
            default: return nil
            }
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout: return .timedOut
            case .remoteConnectionClosed, .cancelled: return .connectionLost
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func unreachableCause(errno code: Int32) -> UnreachableCause {
        switch code {
        case ECONNREFUSED: .refused
        case ETIMEDOUT: .timedOut
        case EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL: .refused
        default: .connectionLost
        }
    }

    /// Why a failed exchange was a certificate this device would not trust, in words, or
    /// nil if it failed for another reason.
    static func certificateProblem(_ error: any Error) -> String? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "its certificate is for another name"
        }
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "its certificate is not signed by an authority this device trusts (self-signed or expired?); "
                + "sign in again with --ca-cert FILE to trust a private authority"
        }
        if error is NIOSSLError || text.contains("NIOSSL") {
            return "the TLS handshake failed (\(text))"
        }
        return nil
    }
}
