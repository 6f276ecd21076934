import Foundation
import IdeaBoxFoundation
import IdeaModel

/// Where one profile's data lives: a root shared by every profile (and, later, the
/// embedded remote), and a folder per profile under it.
public struct DataLocation: Sendable, Equatable {
    /// The data root.
    public let root: URL
    /// The profile: one simulated device.
    public let profile: String
    /// `root`'s path. Kept as a string because a command's first `URL.path` costs it a runtime
    /// search of every protocol conformance in the binary (Foundation makes a `Set<UInt8>`
    /// there): `ideabox add` and `export` work with these paths only (BENCHMARKS.md, "Everyday
    /// commands against taskwarrior").
    public let rootPath: String

    /// The profile used when none is given.
    public static let defaultProfile = "default"

    /// A location from an explicit root and profile.
    public init(root: URL, profile: String = DataLocation.defaultProfile) throws(DataLocationError) {
        try self.init(root: root, rootPath: root.path, profile: profile)
    }

    private init(root: URL, rootPath: String, profile: String) throws(DataLocationError) {
        guard Self.isValidProfileName(profile) else { throw .invalidProfile(profile) }
        self.root = root
        self.rootPath = rootPath
        self.profile = profile
    }

    /// The folder holding this profile's database.
    public var profileDirectory: URL {
        root.appendingPathComponent("profiles", isDirectory: true).appendingPathComponent(profile, isDirectory: true)
    }

    /// The folder of all profiles, as a path: `profileDirectory`'s parent.
    public var profilesPath: String {
        (rootPath == "/" ? "" : rootPath) + "/profiles"
    }

    /// `profileDirectory`'s path.
    public var profileDirectoryPath: String {
        profilesPath + "/" + profile
    }

    /// Resolves the root: `dataDirectory`, else `$IDEABOX_HOME`, else
    /// `$XDG_DATA_HOME/ideabox`, else `~/.local/share/ideabox`; and the profile: `profile`,
    /// else `$IDEABOX_PROFILE`, else `default`. An empty variable counts as unset, but an
    /// empty `profile` was asked for and is refused.
    public static func resolve(
        dataDirectory: String?, profile: String?, environment: [String: String]
    ) throws(DataLocationError) -> DataLocation {
        try resolve(dataDirectory: dataDirectory, profile: profile, environment: EnvironmentVariables(environment))
    }

    /// `resolve(dataDirectory:profile:environment:)` with the variables read one at a time.
    public static func resolve(
        dataDirectory: String?, profile: String?, environment: EnvironmentVariables
    ) throws(DataLocationError) -> DataLocation {
        let profile = profile ?? nonEmpty(environment["IDEABOX_PROFILE"]) ?? defaultProfile
        let folder: String, under: String?
        if let explicit = nonEmpty(dataDirectory) ?? nonEmpty(environment["IDEABOX_HOME"]) {
            (folder, under) = (explicit, nil)
        } else if let xdg = nonEmpty(environment["XDG_DATA_HOME"]) {
            (folder, under) = (xdg, "ideabox")
        } else if let home = nonEmpty(environment["HOME"]) {
            (folder, under) = (home, ".local/share/ideabox")
        } else {
            throw .noHome
        }
        // A path already in standard form is the root as it is, with no `URL` work.
        let path = under.map { folder + "/" + $0 } ?? folder
        if URL.isStandardPath(path) {
            return try DataLocation(root: URL(fileURLWithPath: path, isDirectory: true), rootPath: path, profile: profile)
        }
        var root = URL(fileURLWithPath: folder, isDirectory: true)
        if let under { root = root.appendingPathComponent(under, isDirectory: true) }
        return try DataLocation(root: root.standardizedFileURL, profile: profile)
    }

    /// Letters, digits, `.`, `_` and `-`, 1 to 64 of them, not starting with a dot.
    /// (Byte by byte: each is one character then.)
    static func isValidProfileName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, name.utf8.first != UInt8(ascii: ".") else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
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
