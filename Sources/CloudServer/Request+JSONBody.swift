import CloudWebServices
import Hummingbird
import NIOCore
import NIOHTTP1

extension Request {
    /// The body as a JSON object, at most `context.maxUploadSize` bytes of it (else
    /// `BAD_REQUEST` saying `limitExceeded:`); an empty body is `{}`.
    func jsonObject(context: ServerRequestContext) async throws -> WebServicesFormat.Object {
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw WebServicesError.limitExceeded("The request body is over \(context.maxUploadSize >> 20) MiB.")
        } catch let error as HTTPParserError {
            throw ClientLeft.unreadableBody(error)
        }
        guard buffer.readableBytes > 0 else { return [:] }
        let json: JSONValue
        do {
            json = try buffer.withUnsafeReadableBytes { try JSONValue(parsing: $0) }
        } catch {
            throw WebServicesError.badRequest("The body is not valid JSON: \(error).")
        }
        guard let object = json.object else {
            throw WebServicesError.badRequest("The body must be a JSON object.")
        }
        return object
    }
}
