@testable import CloudServer
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// What `ConnectionWatch` hands to the socket, and when: an answer's body part and its end,
/// written one after the other as a long poll's answer is, go out in one flush; a body part
/// whose end does not come in the same turn of the event loop is flushed at its end all the
/// same; a head, or an answer written whole, is flushed at once.
struct ConnectionWatchTests {
    /// A channel with the watch alone, as the server places it (after the HTTP decoder).
    private static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ConnectionWatch(registry: ConnectionRegistry(limit: 10), stallTimeout: .seconds(30)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    /// Feeds `channel` a request's head and end, as the decoder hands them on.
    private static func request(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/webcourier/t")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        while try channel.readInbound(as: HTTPRequestPart.self) != nil {}
    }

    @Test("A long poll's answer: its head goes at once; its body part and its end, written one after the other, go in one flush")
    func bodyAndEndInOneFlush() throws {
        let channel = try Self.channel()
        try Self.request(channel)
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.flush()
        #expect(try channel.responseParts() == ["head"])
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "{}")), promise: nil)
        channel.flush()
        #expect(try channel.responseParts() == [])
        channel.write(HTTPResponsePart.end(nil), promise: nil)
        channel.flush()
        #expect(try channel.responseParts() == ["body {}", "end"])
        channel.embeddedEventLoop.run()
        #expect(try channel.responseParts() == [])
        _ = try channel.finish()
    }

    @Test("A body part whose end does not come in the same turn is flushed at the turn's end; so is each next part")
    func bodyAloneFlushedAtTheTurnsEnd() throws {
        let channel = try Self.channel()
        try Self.request(channel)
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "first")), promise: nil)
        channel.flush()
        #expect(try channel.responseParts() == [])
        channel.embeddedEventLoop.run()
        #expect(try channel.responseParts() == ["head", "body first"])
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "second")), promise: nil)
        channel.flush()
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "third")), promise: nil)
        channel.flush()
        channel.embeddedEventLoop.run()
        #expect(try channel.responseParts() == ["body second", "body third"])
        channel.write(HTTPResponsePart.end(nil), promise: nil)
        channel.flush()
        #expect(try channel.responseParts() == ["end"])
        _ = try channel.finish()
    }

    @Test("An answer written whole is flushed at once, and so is the next request's")
    func wholeAnswerAtOnce() throws {
        let channel = try Self.channel()
        for _ in 0..<2 {
            try Self.request(channel)
            channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
            channel.write(HTTPResponsePart.body(ByteBuffer(string: "{}")), promise: nil)
            channel.write(HTTPResponsePart.end(nil), promise: nil)
            channel.flush()
            #expect(try channel.responseParts() == ["head", "body {}", "end"])
        }
        _ = try channel.finish()
    }
}
