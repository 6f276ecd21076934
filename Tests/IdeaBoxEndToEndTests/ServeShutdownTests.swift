import Foundation
import ProcessTestSupport
import Testing

/// `ideabox serve` stopped while a client holds a request open: it lets requests in flight
/// finish for `--shutdown-timeout`, then closes the rest and exits.
@Suite("serve stops within its shutdown deadline")
struct ServeShutdownTests {
    @Test func sigtermWithABodyThatNeverFinishesExitsWithinTheDeadline() async throws {
        let server = try ServeProcess()
        defer { server.close() }
        let token = try server.addAccount("alice")
        try await server.start(["--shutdown-timeout", "2", "--idle-timeout", "600"])
        let port = try #require(URLComponents(string: try server.url)?.port)

        // A request whose body promises 1,000 bytes and sends ten, then nothing.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = "POST /database/1/iCloud.com.buildwithharry.IdeaBox/production/private/records/modify HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000\r\n\r\n{\"zoneID\":"
        _ = Array(request.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try await Task.sleep(for: .milliseconds(300))

        let started = ContinuousClock.now
        let status = try server.stop(SIGTERM)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(8), "serve took \(took) to stop")
        #expect(status == 0 || status == 128 + SIGTERM, "exit status \(status)")
        #expect(server.log.contains("serve: stopped") || status != 0)
    }
}
