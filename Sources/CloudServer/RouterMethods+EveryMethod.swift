import Hummingbird

extension RouterMethods {
    /// Routes `path` for every method the HTTP/1.1 parser reads, to `handler`, so that a
    /// middleware on the way answers a method the path does not take with 405, as CloudKit
    /// does (a router alone answers 404).
    @discardableResult
    func onEveryMethod(_ path: RouterPath, use handler: @Sendable @escaping (Request, Context) async throws -> Response) -> Self {
        for method in Self.parsedMethods { on(path, method: method, use: handler) }
        return self
    }

    /// The methods NIO's HTTP/1.1 parser hands on; it refuses any other.
    private static var parsedMethods: [HTTPRequest.Method] {
        [
            "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "ACL", "COPY", "LOCK", "MOVE", "BIND",
            "LINK", "MKCOL", "MERGE", "PURGE", "NOTIFY", "SEARCH", "UNLOCK", "REBIND", "UNBIND", "REPORT", "UNLINK", "M-SEARCH",
            "PROPFIND", "CHECKOUT", "PROPPATCH", "SUBSCRIBE", "MKCALENDAR", "MKACTIVITY", "UNSUBSCRIBE", "SOURCE", "QUERY",
        ].compactMap { HTTPRequest.Method($0) }
    }
}
