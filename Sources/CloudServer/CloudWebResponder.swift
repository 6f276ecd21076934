import CloudKitModel
import CloudStore
import CloudWebServices
import Foundation
import Hummingbird

/// Answers CloudKit Web Services requests for the private databases in a `RecordStore`.
///
/// Every request is hostile until shown otherwise: the path is checked first, then the
/// token (no token or a bad one touches nothing), then the body's size (at most
/// `maximumBodyBytes`) and its JSON, and only then does anything reach the store. The
/// account comes from the token alone, so no name in a body can reach another account's
/// zones or records. Each request gets one line in the log.
struct CloudWebResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    /// The largest JSON body read; a larger one is refused unread (`BAD_REQUEST`, `limitExceeded:`). (An
    /// asset upload may be up to `AssetReference.maximumSize`.)
    static let maximumBodyBytes = 8 << 20

    let store: any RecordStore
    let container: String
    let log: RequestLog

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        var account: String?
        let response: Response
        do {
            let path = try route(request)
            account = try await authenticate(request)
            let operations = CloudOperations(store: store, account: account!)
            switch path.operation {
            case .assetsUpload:
                let reference = try await operations.uploadAsset(try await readAsset(request))
                response = Self.json(status: .ok, ["singleFile": WebServicesFormat.object(reference)])
            case .assetsDownload:
                let data = try await operations.downloadAsset(try await readBody(request))
                response = Response(
                    status: .ok, headers: [.contentType: "application/octet-stream"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            default:
                response = Self.json(status: .ok, try await operations.perform(path.operation, try await readBody(request)))
            }
        } catch let error as WebServicesError {
            response = Self.error(error)
        } catch let error as CloudError {
            response = Self.error(WebServicesError(error))
        } catch {
            response = Self.error(WebServicesError(.internalError))
        }
        log.record(
            method: request.method.rawValue, path: String(request.uri.path.prefix(300)), status: response.status.code,
            elapsed: ContinuousClock.now - started, account: account)
        return response
    }

    /// The operation `request` asks for, or the error for a path or method that is not served.
    private func route(_ request: Request) throws -> WebServicesPath.Parsed {
        guard let path = WebServicesPath.parse(request.uri.path) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "No such endpoint.")
        }
        guard path.container == container else {
            throw WebServicesError(code: "NOT_FOUND", reason: "This server serves the container \(container) only.")
        }
        guard WebServicesPath.environments.contains(path.environment) else {
            throw WebServicesError.badRequest("The environment is production or development.")
        }
        guard path.database == "private" else {
            throw WebServicesError(code: "ACCESS_DENIED", reason: "Only the private database is served.")
        }
        guard request.method == .post || (request.method == .get && path.operation == .zonesList) else {
            throw WebServicesError.badRequest("Use POST.")
        }
        return path
    }

    /// The account of the request's bearer token.
    private func authenticate(_ request: Request) async throws -> String {
        guard let header = request.headers[.authorization] else { throw WebServicesError.authenticationRequired }
        let prefix = "Bearer "
        guard header.hasPrefix(prefix), header.utf8.count <= 512 else { throw WebServicesError.authenticationFailed }
        let token = String(header.dropFirst(prefix.count))
        guard !token.isEmpty, let account = try await store.account(forAccessTokenHash: AccessToken.hash(token)) else {
            throw WebServicesError.authenticationFailed
        }
        return account
    }

    /// The body as a JSON object; an empty body is `{}`.
    private func readBody(_ request: Request) async throws -> WebServicesFormat.Object {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maximumBodyBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw WebServicesError.limitExceeded("The request body is over \(Self.maximumBodyBytes >> 20) MiB.")
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

    /// The body of an asset upload: any bytes, at most `AssetReference.maximumSize` of them.
    private func readAsset(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: AssetReference.maximumSize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw WebServicesError.limitExceeded("An asset is at most \(AssetReference.maximumSize >> 20) MiB.")
        }
    }

    private static func json(status: HTTPResponse.Status, _ object: WebServicesFormat.Object) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(object).bytes)))
    }

    private static func error(_ error: WebServicesError) -> Response {
        var response = json(status: HTTPResponse.Status(code: error.httpStatus), error.object)
        if let retryAfter = error.retryAfter {
            response.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
        }
        return response
    }
}
