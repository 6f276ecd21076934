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
}
