import Foundation
import IdeaBoxCore
import ProcessTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ideabox serve` whose open files are limited to 1,024, soft and hard (so raising the soft
/// limit at start gains nothing), flooded with connections that never send a byte: it closes
/// the connection idle longest to take each new one, so a real request still gets through.
@Suite("serve at its file limit still answers a real request")
struct ServeConnectionLimitTests {
    @Test func aRequestGetsThroughElevenHundredIdleConnectionsAtAFileLimitOf1024() async throws {
        // This test process holds 1,100 sockets of its own.
        #expect(FileLimit.raiseToHardLimit() > 1_200)
        let server = try ServeProcess()
        defer { server.close() }
        let token = try server.addAccount("alice")
        try await server.start(fileLimit: 1_024)
        #expect(server.log.contains("open files up to 1024"), "\(server.log)")
        // The server holds only its own files: nothing of this process's was handed down.
        let pid = try #require(server.pid)
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        #expect(held < 64, "serve started with \(held) files open")
        let port = try #require(URLComponents(string: try server.url)?.port)

        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<1_100 { idle.append(try Self.connect(port)) }

        let started = ContinuousClock.now
        let descriptor = try Self.connect(port)
        defer { close(descriptor) }
        let request = "POST /database/1/iCloud.com.buildwithharry.IdeaBox/production/private/zones/list HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        let answer = try Self.exchange(descriptor, request, waitingAtMost: 30)
        let took = ContinuousClock.now - started
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
        #expect(answer.contains("\"zoneName\":\"_defaultZone\""), "\(answer)")
        #expect(took < .seconds(1), "the request took \(took)")
        // The server is still whole: no error line, and it stops as asked.
        #expect(!server.log.contains(" 500 "), "\(server.log)")
        #expect(try server.stop(SIGTERM) == 0)
    }

    /// A blocking TCP connection to 127.0.0.1:`port`.
    static func connect(_ port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw EndToEndError(description: "socket: \(String(cString: strerror(errno)))") }
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
            throw EndToEndError(description: "connect: \(reason)")
        }
        return descriptor
    }

    /// Sends `request` and reads until the server closes or `seconds` pass.
    static func exchange(_ descriptor: Int32, _ request: String, waitingAtMost seconds: Int) throws -> String {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = Array(request.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
