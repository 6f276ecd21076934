import Foundation
import IdeaModel

/// Where one profile's data lives: a root shared by every profile (and, later, the
/// embedded remote), and a folder per profile under it.
public struct DataLocation: Sendable, Equatable {
    /// The data root.
    public var root: URL
    /// The profile: one simulated device.
    public var profile: String

    /// The profile used when none is given.
    public static let defaultProfile = "default"

    /// A location from an explicit root and profile.
    public init(root: URL, profile: String = DataLocation.defaultProfile) throws(DataLocationError) {
        guard Self.isValidProfileName(profile) else { throw .invalidProfile(profile) }
        self.root = root
        self.profile = profile
    }

    /// The folder holding this profile's database.
    public var profileDirectory: URL {
        root.appendingPathComponent("profiles", isDirectory: true).appendingPathComponent(profile, isDirectory: true)
    }

    /// Resolves the root: `dataDirectory`, else `$IDEABOX_HOME`, else
    /// `$XDG_DATA_HOME/ideabox`, else `~/.local/share/ideabox`; and the profile: `profile`,
    /// else `$IDEABOX_PROFILE`, else `default`. An empty variable counts as unset, but an
    /// empty `profile` was asked for and is refused.
    public static func resolve(
        dataDirectory: String?, profile: String?, environment: [String: String]
    ) throws(DataLocationError) -> DataLocation {
        let root: URL
        if let explicit = nonEmpty(dataDirectory) ?? nonEmpty(environment["IDEABOX_HOME"]) {
            root = URL(fileURLWithPath: explicit, isDirectory: true)
        } else if let xdg = nonEmpty(environment["XDG_DATA_HOME"]) {
            root = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("ideabox", isDirectory: true)
        } else if let home = nonEmpty(environment["HOME"]) {
            root = URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local/share/ideabox", isDirectory: true)
        } else {
            throw .noHome
        }
        return try DataLocation(
            root: root.standardizedFileURL,
            profile: profile ?? nonEmpty(environment["IDEABOX_PROFILE"]) ?? defaultProfile)
    }

    /// Letters, digits, `.`, `_` and `-`, 1 to 64 of them, not starting with a dot.
    static func isValidProfileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "._-".unicodeScalars.contains($0)) }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

/// Why no data location could be chosen.
public enum DataLocationError: UserFacingError, Equatable, Sendable {
    /// The profile name would not make a safe folder name.
    case invalidProfile(String)
    /// Neither a data directory nor a home directory is known.
    case noHome

    public func message(in language: Language) -> String {
        switch (self, language) {
        case let (.invalidProfile(name), .english):
            "\"\(name)\" is not a valid profile name: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'."
        case let (.invalidProfile(name), .traditionalChinese):
            "「\(name)」不是有效的設定檔名稱：請使用 1 到 64 個英文字母、數字、「.」、「_」或「-」，且不能以「.」開頭"
        case (.noHome, .english):
            "No data directory: pass --data-dir, or set IDEABOX_HOME or HOME."
        case (.noHome, .traditionalChinese):
            "沒有資料目錄：請使用 --data-dir，或設定 IDEABOX_HOME 或 HOME"
        }
    }
}
