import CloudWebServices
import Hummingbird
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1

extension Request {
    /// The body as a JSON object, at most `context.maxUploadSize` bytes of it (else
    /// `BAD_REQUEST` saying `limitExceeded:`); an empty body is `{}`, unless `operation` needs
    /// one (`BAD_REQUEST`).
    func jsonObject(context: ServerRequestContext, for operation: WebServicesPath.Operation? = nil) async throws -> WebServicesFormat.Object {
        let buffer = try await Self.collect(body, context: context)
        guard buffer.readableBytes > 0 else {
            if let operation, operation.needsBody {
                throw WebServicesError.badRequest("\(operation.rawValue) needs a JSON object as its body, as Apple's reference gives it.")
            }
            return [:]
        }
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

    /// Reads the body whole (at most `context.maxUploadSize` bytes, refused as `jsonObject`
    /// refuses it) and keeps it in the request, where `jsonObject` then finds it at once.
    mutating func receiveBody(context: ServerRequestContext) async throws {
        body = RequestBody(buffer: try await Self.collect(body, context: context))
    }

    private static func collect(_ body: RequestBody, context: ServerRequestContext) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw WebServicesError.limitExceeded("The request body is over \(context.maxUploadSize >> 20) MiB.")
        } catch let error as HTTPParserError {
            throw ClientLeft.unreadableBody(error)
        }
    }
}
