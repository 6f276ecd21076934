import CloudServer
import Foundation
import IdeaBoxFoundation
import Logging
import ProcessTestSupport
import Testing

/// `serve`'s log lines through swift-log: the text a person reads, or one JSON object a line.
@Suite struct ServeLogHandlerTests {
    static let clock = WallClock { TestTime.start }

    /// A logger whose handler writes `format` lines into the returned recorder.
    static func logger(_ format: ServeLogHandler.Format) -> (Logger, LineRecorder) {
        let recorder = LineRecorder()
        let logger = Logger(label: "ideabox.serve") { label in
            ServeLogHandler(label: label, format: format, clock: clock) { line in recorder.lines.withLock { $0.append(line) } }
        }
        return (logger, recorder)
    }

    @Test("Text: a request is the line serve always wrote; any other message is `serve: …` with its metadata as key=value")
    func text() {
        let (logger, lines) = Self.logger(.text)
        logger.info("request", metadata: ["method": "POST", "path": "/records/modify", "status": "200", "ms": "1.5", "account": "alice"])
        logger.warning("collecting unused assets failed", metadata: ["error": "disk full"])
        let written = lines.lines.withLock { $0 }
        #expect(written == [
            "\(Self.clock.now().iso8601) POST /records/modify 200 1.5 ms alice",
            "serve: collecting unused assets failed error=disk full",
        ])
    }

    @Test("Text: a request without a time taken or an account shows `-` for each; a field of the logger's own or not a string is written as interpolation writes it")
    func textRequestFields() {
        let (base, lines) = Self.logger(.text)
        var logger = base
        logger[metadataKey: "account"] = "from-the-logger"
        logger.info("request", metadata: ["method": "GET", "path": "/health", "status": .stringConvertible(204)])
        logger.info("request", metadata: ["method": "GET", "path": "/webcourier/…", "status": "200", "ms": "3.5", "account": "bob"])
        base.info("request", metadata: ["method": "GET", "path": "/", "status": "404"])
        let time = Self.clock.now().iso8601
        #expect(lines.lines.withLock { $0 } == [
            "\(time) GET /health 204 - ms from-the-logger", "\(time) GET /webcourier/… 200 3.5 ms bob", "\(time) GET / 404 - ms -",
        ])
    }

    @Test("JSON: one object a line with time, level, logger, message and each field; status and ms as numbers")
    func json() throws {
        let (logger, lines) = Self.logger(.json)
        logger.info("request", metadata: ["method": "GET", "path": "/webcourier/…", "status": "200", "ms": "30012.4", "account": "-"])
        logger.notice("listening on http://127.0.0.1:8420")
        let written = lines.lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(written[0].hasPrefix("{\"time\":\"\(Self.clock.now().iso8601)\",\"level\":\"info\",\"logger\":\"ideabox.serve\",\"message\":\"request\",\"account\":"), "\(written[0])")
        let request = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(request["message"] as? String == "request" && request["level"] as? String == "info" && request["logger"] as? String == "ideabox.serve")
        #expect(request["method"] as? String == "GET" && request["path"] as? String == "/webcourier/…" && request["account"] as? String == "-")
        #expect(request["status"] as? Int == 200 && request["ms"] as? Double == 30012.4)
        #expect(request["time"] as? String == Self.clock.now().iso8601)
        let notice = try #require(try JSONSerialization.jsonObject(with: Data(written[1].utf8)) as? [String: Any])
        #expect(notice["message"] as? String == "listening on http://127.0.0.1:8420" && notice["level"] as? String == "notice")
    }

    @Test("A request log of a logger writes each request as a `request` message, and never the token")
    func requestLogThroughALogger() async throws {
        let (logger, lines) = Self.logger(.json)
        let server = try await ServerFixture(log: RequestLog(logger: logger))
        _ = try await server.send(ServerFixture.path("zones/list"), token: server.aliceToken, json: [:])
        let written = lines.lines.withLock { $0 }
        #expect(written.count == 1 && !written[0].contains(server.aliceToken), "\(written)")
        let request = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(request["path"] as? String == ServerFixture.path("zones/list") && request["status"] as? Int == 200 && request["account"] as? String == "alice")
    }
}
