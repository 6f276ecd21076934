import NIOCore
import NIOEmbedded
import NIOHTTPTypes

extension EmbeddedChannel {
    /// The answer's parts written out of this channel so far, by kind: `head`, `body` and its
    /// text, `end`.
    func responseParts() throws -> [String] {
        var parts: [String] = []
        while let part = try readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .head: parts.append("head")
            case .body(let body): parts.append("body " + String(buffer: body))
            case .end: parts.append("end")
            }
        }
        return parts
    }
}
