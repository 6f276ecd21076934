import CloudWebServices
import NIOHTTP1

/// A request refused before its body was read: answered with `Connection: close`, so that
/// the bytes still coming are never read as the next request.
struct UnreadBody: Error {
    let error: WebServicesError
}

/// A client that left before its body arrived, so there is nobody to answer: logged as
/// 499 (nginx's "client closed request"), never as a server error.
struct ClientLeft: Error {
    /// What the log says of such a request, as nginx does.
    static let loggedStatus = 499

    /// What a body the HTTP parser gave up on means: the client left halfway, or it framed
    /// the body in a way HTTP/1.1 has not (`Transfer-Encoding: xchunked`, say): a 400.
    static func unreadableBody(_ error: HTTPParserError) -> any Error {
        if error == .invalidEOFState { return ClientLeft() }
        return WebServicesError.badRequest("The request's body is not framed as HTTP/1.1 frames one (\(error)).")
    }
}
