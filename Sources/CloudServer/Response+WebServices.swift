import CloudWebServices
import Hummingbird
import IdeaBoxFoundation
import NIOCore
import Synchronization

extension Response {
    /// `object` as the JSON body of a `status` answer.
    static func json(status: HTTPResponse.Status = .ok, _ object: WebServicesFormat.Object) -> Response {
        json(status: status, bytes: JSONValue.object(object).bytes)
    }

    /// `bytes`, a JSON object's text, as the body of a `status` answer.
    static func json(status: HTTPResponse.Status = .ok, bytes: [UInt8]) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .inPieces(ByteBuffer(bytes: bytes)))
    }

    /// Apple's error dictionary for `error`, at its status, with `Retry-After` when it says when.
    static func error(_ error: WebServicesError) -> Response {
        var response = json(status: HTTPResponse.Status(code: error.httpStatus), error.object)
        if let retryAfter = error.retryAfter {
            response.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
        }
        if let allowed = error.allowedMethods { response.headers[.allow] = allowed.joined(separator: ", ") }
        return response
    }

    /// This response, with `done` run once it is written: at once for a body of known length,
    /// else after its body (a long poll's, written when the poll ends; or later still, if the
    /// body hands its end on: `AnswerWrittenLater`), told whether the answer never reached the
    /// client whole: it had left (`ClientLeft`), or the write failed some other way (a
    /// connection reset as the answer went out), after the head was sent and so with no status
    /// left to give. Either way `done` runs exactly once.
    func whenWritten(_ done: @escaping @Sendable (_ clientLeft: Bool) -> Void) -> Response {
        guard body.contentLength == nil else {
            done(false)
            return self
        }
        var response = self
        let body = self.body
        response.body = ResponseBody { writer in
            let later = AnswerWrittenLater.current ?? AnswerWrittenLater()
            do {
                try await AnswerWrittenLater.$current.withValue(later) { try await body.write(writer) }
            } catch {
                done(true)
                throw error
            }
            later.afterwards(done)
        }
        return response
    }
}

/// The end of an answer that its body hands on, to be written after the body returns (a long
/// poll held by its connection: `PollAnswerWriter`), for what waits for the answer to be
/// written (`Response.whenWritten`): one for each answer of unknown length, shared by the
/// middlewares around it.
final class AnswerWrittenLater: Sendable {
    /// The answer whose body runs now.
    @TaskLocal static var current: AnswerWrittenLater?

    private enum State {
        /// The body writes the answer whole.
        case writing
        /// The body handed the answer's end on: what runs once it is written.
        case handedOn([@Sendable (_ clientLeft: Bool) -> Void])
        case written(clientLeft: Bool)
    }

    private let state = Mutex(State.writing)

    /// Says that the answer's end is written after its body returns, and `written` told then.
    func handOn() {
        state.withLock { state in
            if case .writing = state { state = .handedOn([]) }
        }
    }

    /// The answer handed on is written, or never will be (`clientLeft`).
    func written(clientLeft: Bool) {
        let waiting = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard case .handedOn(let waiting) = state else { return [] }
            state = .written(clientLeft: clientLeft)
            return waiting
        }
        for done in waiting { done(clientLeft) }
    }

    /// Runs `done` once the answer is written: now, after a body that wrote it whole or once
    /// its end handed on is written; else when it is.
    func afterwards(_ done: @escaping @Sendable (_ clientLeft: Bool) -> Void) {
        let now = state.withLock { state -> Bool? in
            switch state {
            case .writing: return false
            case .written(let clientLeft): return clientLeft
            case .handedOn(var waiting):
                waiting.append(done)
                state = .handedOn(waiting)
                return nil
            }
        }
        if let now { done(now) }
    }
}

extension ResponseBody {
    /// The most bytes of an answer handed to its connection at once.
    static let pieceBytes = 64 << 10

    /// `buffer`, of known length, written a piece (`pieceBytes`) at a time, each once the
    /// connection has taken the last: a large answer to a client that reads slowly waits in
    /// the server's memory, and holds its account's share (`AnswerShareMiddleware`) until
    /// its last piece is taken.
    static func inPieces(_ buffer: ByteBuffer) -> ResponseBody {
        guard buffer.readableBytes > pieceBytes else { return ResponseBody(byteBuffer: buffer) }
        return ResponseBody(contentLength: buffer.readableBytes) { writer in
            try await Self.write(buffer, inPiecesTo: &writer)
            try await writer.finish(nil)
        }
    }

    /// Writes `buffer` to `writer` a piece at a time.
    static func write(_ buffer: ByteBuffer, inPiecesTo writer: inout any ResponseBodyWriter) async throws {
        var rest = buffer
        while rest.readableBytes > 0, let piece = rest.readSlice(length: min(pieceBytes, rest.readableBytes)) {
            try await writer.write(piece)
        }
    }
}
