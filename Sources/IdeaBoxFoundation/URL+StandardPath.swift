import Foundation

extension URL {
    /// `standardizedFileURL`, without that property's work when the path is already in its
    /// standard form: an absolute file path, not relative to another URL, with no empty, `.`
    /// or `..` component, no `~`, and none of the prefixes Foundation strips (`/private/`,
    /// `/var/automount/`). Foundation's makes a `Set<UInt8>` the first time it runs, and a
    /// process pays for its first set of a type with a runtime search of every protocol
    /// conformance in the binary (BENCHMARKS.md, "Everyday commands against taskwarrior").
    public var standardizedFileURLQuickly: URL {
        guard isFileURL, baseURL == nil, Self.isStandardPath(path) else { return standardizedFileURL }
        return self
    }

    /// Whether `path` is absolute and needs no standardizing: every component, between
    /// single slashes, is neither empty, `.` nor `..`.
    public static func isStandardPath(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        guard path.utf8.first == slash, !path.hasPrefix("/private"), !path.hasPrefix("/var/automount") else { return false }
        guard path != "/" else { return true }
        var length = 0, onlyDots = true
        for byte in path.utf8.dropFirst() {
            if byte == slash {
                guard length > 0, !(onlyDots && length <= 2) else { return false }
                length = 0
                onlyDots = true
            } else {
                length += 1
                if byte != dot { onlyDots = false }
            }
        }
        return length > 0 && !(onlyDots && length <= 2)
    }
}
