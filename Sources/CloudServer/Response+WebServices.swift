import CloudWebServices
import Hummingbird
import NIOCore

extension Response {
    /// `object` as the JSON body of a `status` answer.
    static func json(status: HTTPResponse.Status = .ok, _ object: WebServicesFormat.Object) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(object).bytes)))
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
    /// else after its body (a long poll's, written when the poll ends), told whether the
    /// answer never reached the client whole: it had left (`ClientLeft`), or the write failed
    /// some other way (a connection reset as the answer went out), after the head was sent
    /// and so with no status left to give. Either way `done` runs exactly once.
    func whenWritten(_ done: @escaping @Sendable (_ clientLeft: Bool) -> Void) -> Response {
        guard body.contentLength == nil else {
            done(false)
            return self
        }
        var response = self
        let body = self.body
        response.body = ResponseBody { writer in
            do {
                try await body.write(writer)
                done(false)
            } catch {
                done(true)
                throw error
            }
        }
        return response
    }
}
