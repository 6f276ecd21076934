import Glibc

/// Why `CloudServer.start` could not listen on its address: the system's error number
/// (`EADDRINUSE` when another program listens there, `EACCES` for a port it may not take…).
public struct ListenError: Error, Equatable, Sendable {
    /// The address the server was to listen on.
    public var host: String
    /// The port it was to listen on.
    public var port: Int
    /// The `errno` of the failed call (`bind`, most often).
    public var code: Int32

    /// The failure to listen on `host`:`port`, with `errno` `code`.
    public init(host: String, port: Int, code: Int32) {
        self.host = host
        self.port = port
        self.code = code
    }
}

extension ListenError {
    /// Binds a socket to `host`:`port` the way the server will (the first address the name
    /// resolves to, as NIO takes it; `SO_REUSEADDR` on, as Hummingbird sets it) and lets it go;
    /// throws what that bind met, such as `EADDRINUSE` while another program listens there.
    /// Port 0 (any free port) always binds; a name that does not resolve is left to the server.
    static func check(host: String, port: Int) throws(ListenError) {
        guard port != 0 else { return }
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), nil, &found) == 0, let address = found?.pointee else { return }
        defer { freeaddrinfo(found) }
        let descriptor = socket(address.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.ai_addr, address.ai_addrlen) == 0 else {
            throw ListenError(host: host, port: port, code: errno)
        }
    }
}
