import Hummingbird
import IdeaBoxFoundation
import NIOCore

/// An answer `{"records":[…]}` written as its items are read (`records/lookup`, which Apple
/// gives no continuation): the first read is made before the answer's head, so that what
/// fails there (a bad body, an unknown zone, a store that does not answer) is answered with
/// its status as before; each later read's items are encoded and written, a piece at a time
/// once the connection takes it, before the next read. A lookup of 200 records of 1 MB then
/// holds about one read's budget (`PageBudget.byteBudget`) at a time, not 200 MB.
///
/// A read that fails after the head was written has no status left to give: the answer is
/// cut off and its connection closed (its chunked body never ends), so the client sees a
/// broken answer and retries, never a shorter list that parses.
struct StreamedRecords: Sendable {
    /// The items of the first read.
    var first: [JSONValue]
    /// Reads the rest, handing each read's items to `write` before reading on.
    var rest: @Sendable (_ write: ([JSONValue]) async throws -> Void) async throws -> Void

    /// The answer, its body written as `rest` reads.
    func response() -> Response {
        let (first, rest) = (first, rest)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody { writer in
            var bytes = Array(#"{"records":["#.utf8)
            var isFirst = true
            func append(_ items: [JSONValue]) {
                for item in items {
                    if !isFirst { bytes.append(UInt8(ascii: ",")) }
                    isFirst = false
                    item.write(to: &bytes)
                }
            }
            append(first)
            do {
                try await rest { items in
                    append(items)
                    try await ResponseBody.write(ByteBuffer(bytes: bytes), inPiecesTo: &writer)
                    bytes.removeAll(keepingCapacity: false)
                }
            } catch {
                CloudServer.logger.error(
                    "records/lookup failed after its answer began; its connection is closed: \(String(reflecting: error))")
                throw error
            }
            bytes.append(contentsOf: "]}".utf8)
            try await ResponseBody.write(ByteBuffer(bytes: bytes), inPiecesTo: &writer)
            try await writer.finish(nil)
        })
    }
}
