import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP connection to a server on 127.0.0.1, for the tests that speak to it as a hostile
/// or broken client would: bytes no HTTP client sends, requests left half-sent, connections
/// held open. The caller closes the descriptor.
public enum LoopbackSocket {
    /// A blocking connection to 127.0.0.1:`port`.
    public static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackSocketError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw LoopbackSocketError(description: "connect to 127.0.0.1:\(port): \(reason)")
        }
        return descriptor
    }

    /// A socket listening on 127.0.0.1 at a port the system picks, as another program on
    /// the machine would hold it; returns the descriptor and the port.
    public static func listen() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackSocketError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, length) == 0 && Glibc.listen(descriptor, 1) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw LoopbackSocketError(description: "listen on 127.0.0.1: \(reason)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Sends `bytes` whole, never raising SIGPIPE.
    public static func send(_ bytes: String, on descriptor: Int32) {
        _ = Array(bytes.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything the server sends until it closes, or until `seconds` pass with nothing.
    public static func readAll(_ descriptor: Int32, waitingAtMost seconds: Int) -> [UInt8] {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return received
    }
}

extension LoopbackSocket {
    /// The server's end of the connection `descriptor` as the kernel lists it (`/proc/net/tcp`):
    /// whether it is still open (ESTABLISHED) and how many of the bytes sent to it the server
    /// has not read yet; nil when the kernel no longer knows it. A test learns from it, without
    /// any help from the server, that the server has read a request, or has closed the connection.
    public static func serverEnd(of descriptor: Int32) -> (isOpen: Bool, unread: Int)? {
        guard let ours = port(of: descriptor, getsockname), let theirs = port(of: descriptor, getpeername),
              // Read to its end: Foundation reads a file of /proc, whose size says 0, one page only.
              let bytes = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp")).readToEnd()
        else { return nil }
        let table = String(decoding: bytes ?? Data(), as: UTF8.self)
        // "sl local_address rem_address st tx_queue:rx_queue …", addresses as HEXADDR:HEXPORT.
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, Self.port(inColumn: fields[1]) == theirs, Self.port(inColumn: fields[2]) == ours,
                  let unread = fields[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { continue }
            return (fields[3] == "01", unread)
        }
        return nil
    }

    private static func port(
        of descriptor: Int32, _ name: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { name(descriptor, $0, &length) } }
        return named == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    private static func port(inColumn column: Substring) -> Int? {
        column.split(separator: ":").last.flatMap { Int($0, radix: 16) }
    }
}

/// A connection that could not be made.
public struct LoopbackSocketError: Error, CustomStringConvertible {
    public let description: String
}

extension LoopbackSocket {
    /// Sends `request` (a whole HTTP/1.1 request that says `Connection: close`) on a new
    /// connection and returns the answer, read until the server closes, or after `seconds`.
    public static func exchange(port: Int, _ request: String, waitingAtMost seconds: Int = 30) throws -> String {
        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        send(request, on: descriptor)
        return String(decoding: readAll(descriptor, waitingAtMost: seconds), as: UTF8.self)
    }

    /// Closes `descriptor` with a reset (RST) instead of an orderly close (FIN), as a client
    /// that crashed, or one that means harm, does.
    public static func reset(_ descriptor: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(descriptor)
    }
}
