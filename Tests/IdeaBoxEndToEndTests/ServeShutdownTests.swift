import Foundation
import ProcessTestSupport
import Testing

/// `ideabox serve` stopped while a client holds a request open: it lets requests in flight
/// finish for `--shutdown-timeout`, then closes the rest (each logged 503, the stop's, not
/// the store's) and exits.
@Suite("serve stops within its shutdown deadline", .takesTurns)
struct ServeShutdownTests {
    @Test func sigtermWithABodyThatNeverFinishesExitsWithinTheDeadline() async throws {
        let server = try ServeProcess()
        defer { server.close() }
        let token = try await server.addAccount("alice")
        try await server.start(["--shutdown-timeout", "2", "--idle-timeout", "600"])
        let port = try #require(URLComponents(string: try server.url)?.port)

        // A request whose body promises 1,000 bytes and sends ten, then nothing.
        let descriptor = try LoopbackSocket.connect(port: port)
        defer { close(descriptor) }
        LoopbackSocket.send(
            "POST /database/1/iCloud.com.buildwithharry.IdeaBox/production/private/records/modify HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000\r\n\r\n{\"zoneID\":",
            on: descriptor)
        // SIGTERM only once serve has read all of it: the request is in flight, not in a socket's buffer.
        try await Poll.until("serve has read the request") { LoopbackSocket.serverEnd(of: descriptor)?.unread == 0 }

        let (status, took) = try await server.timedStop(SIGTERM)
        #expect(took < .seconds(8), "serve took \(took) to stop")
        // A graceful stop: the server's own exit, its last line logged; not killed by the signal.
        #expect(status == 0, "exit status \(status)")
        #expect(server.log.contains("serve: stopped"), "\(server.log.suffix(500))")
        // The request the deadline cut off is the stop's doing: 503, never a server error.
        let cut = server.log.split(separator: "\n").first { $0.contains("/records/modify") }
        #expect(cut?.contains(" 503 ") == true, "\(server.log.suffix(500))")
    }
}
