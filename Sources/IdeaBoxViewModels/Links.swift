/// The web links in a text: `http://` or `https://` and what follows up to a space, a
/// line break or a closing bracket or quote; a full stop or comma at the end is the
/// sentence's, not the link's.
public enum Links {
    private static let schemes = ["https://", "http://"]
    private static let enders: Set<Character> = [" ", "\n", "\t", "\r", "<", ">", "\"", "'", "「", "」", "（", "）", ")", "]", "}"]
    private static let trailing: Set<Character> = [".", ",", ";", ":", "!", "?", "。", "，"]

    /// Each link of `text` with where it is, in order.
    public static func ranges(in text: String) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        var searchStart = text.startIndex
        while let start = schemes.compactMap({ text.range(of: $0, range: searchStart..<text.endIndex)?.lowerBound }).min() {
            var end = start
            while end < text.endIndex, !enders.contains(text[end]) { end = text.index(after: end) }
            while end > start, trailing.contains(text[text.index(before: end)]) { end = text.index(before: end) }
            let link = start..<end
            let schemeLength = text[start...].hasPrefix("https://") ? 8 : 7
            if text.distance(from: start, to: end) > schemeLength {
                found.append(link)
            }
            searchStart = max(end, text.index(after: start))
        }
        return found
    }

    /// The first link of `text`, if it has one.
    public static func first(in text: String) -> String? {
        ranges(in: text).first.map { String(text[$0]) }
    }
}
