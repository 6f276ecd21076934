import Crypto
import Foundation

/// A path in the library folder that is synced: `Favorite.json`, or a `.json` file directly
/// in `Items/` or `FavoriteItems/` (the RawLibrary spec's layout), relative and
/// `/`-separated.
///
/// Every path that reaches the disk goes through `init(_:)`, whether it was found in the
/// folder or named by a record from the remote, so nothing is ever written outside the
/// folder: no `..`, no absolute path, no hidden or nested name, no file name over 255 bytes.
public struct LibraryPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The path as the remote and the manifest spell it, such as `Items/abc.json`.
    public let text: String

    /// The folders whose `.json` files are synced.
    public static let folders = ["Items", "FavoriteItems"]
    /// The one file synced at the top of the library.
    public static let favorites = "Favorite.json"
    /// The longest file name, in UTF-8 bytes (as ext4's).
    public static let maximumNameLength = 255

    /// Why a path is not one the library syncs.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// Absolute, with `..` or `.` parts, empty parts or a NUL: it could leave the folder.
        case escapes(String)
        /// A file name over 255 bytes.
        case nameTooLong(String)
        /// Inside the folder, but not in the synced layout.
        case notInLayout(String)

        public var description: String {
            switch self {
            case .escapes(let path): "\(Self.quoted(path)) would leave the library folder"
            case .nameTooLong(let path): "\(Self.quoted(path)) has a file name over \(LibraryPath.maximumNameLength) bytes"
            case .notInLayout(let path):
                "\(Self.quoted(path)) is not Favorite.json or a .json file in Items/ or FavoriteItems/"
            }
        }

        private static func quoted(_ path: String) -> String {
            "\"" + String(path.unicodeScalars.prefix(300).map { $0.value < 0x20 ? "?" : Character($0) }) + "\""
        }
    }

    /// `text` as a synced path, or the reason it is not one.
    public init(_ text: String) throws(Refusal) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !text.hasPrefix("/"), !text.utf8.contains(0),
              !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { throw .escapes(text) }
        guard parts.allSatisfy({ $0.utf8.count <= Self.maximumNameLength }) else { throw .nameTooLong(text) }
        switch parts.count {
        case 1 where text == Self.favorites:
            break
        case 2 where Self.folders.contains(String(parts[0])) && Self.isSyncedName(parts[1]):
            break
        default:
            throw .notInLayout(text)
        }
        self.text = text
    }

    /// A `.json` file name that is not hidden (temporary files and `.conflicts` start with a dot).
    private static func isSyncedName(_ name: Substring) -> Bool {
        name.hasSuffix(".json") && name.count > ".json".count && !name.hasPrefix(".")
    }

    /// The file name, the last part of the path.
    public var fileName: String { String(text.split(separator: "/").last!) }

    /// The record name of this path: `sha256(path)` in lower-case hex, so one path is one record.
    public var recordName: String {
        SHA256.hash(data: Data(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The file's URL inside `root`.
    public func url(in root: URL) -> URL {
        root.appendingPathComponent(text, isDirectory: false)
    }

    public var description: String { text }

    public static func < (lhs: LibraryPath, rhs: LibraryPath) -> Bool { lhs.text < rhs.text }
}
