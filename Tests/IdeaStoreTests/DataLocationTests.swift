import Foundation
import IdeaStore
import Testing

/// Where the data lives: the root, the profile and their precedence.
@Suite struct DataLocationTests {
    private static let everything = [
        "IDEABOX_HOME": "/env/home", "XDG_DATA_HOME": "/xdg", "HOME": "/users/me", "IDEABOX_PROFILE": "laptop",
    ]

    @Test("The root: --data-dir, then IDEABOX_HOME, then XDG_DATA_HOME/ideabox, then ~/.local/share/ideabox", arguments: [
        ("/explicit", everything, "/explicit"),
        (nil, everything, "/env/home"),
        (nil, ["XDG_DATA_HOME": "/xdg", "HOME": "/users/me"], "/xdg/ideabox"),
        (nil, ["HOME": "/users/me"], "/users/me/.local/share/ideabox"),
        (nil, ["IDEABOX_HOME": "", "XDG_DATA_HOME": "", "HOME": "/users/me"], "/users/me/.local/share/ideabox"),
        ("/explicit", [:], "/explicit"),
        (nil, ["IDEABOX_HOME": "/env/home"], "/env/home"),
        (nil, ["XDG_DATA_HOME": "/xdg"], "/xdg/ideabox"),
        ("/a/b/../c/./d", [:], "/a/c/d"),
        ("/trailing/", [:], "/trailing"),
    ] as [(String?, [String: String], String)])
    func rootPrecedence(dataDirectory: String?, environment: [String: String], root: String) throws {
        let location = try DataLocation.resolve(dataDirectory: dataDirectory, profile: nil, environment: environment)
        #expect(location.root.path == root)
    }

    @Test("The root and its paths are Foundation's standard URL of the path asked for, however it is spelled", arguments: [
        ("/explicit", [:]), ("/a b/靈感", [:]), ("/a/b/../c/./d", [:]), ("/trailing/", [:]), ("//double//slash", [:]), ("/", [:]),
        (nil, ["XDG_DATA_HOME": "/xdg"]), (nil, ["XDG_DATA_HOME": "/xdg/"]), (nil, ["XDG_DATA_HOME": "/x/../y"]),
        (nil, ["HOME": "/users/me"]), (nil, ["HOME": "/users/me/"]), (nil, ["HOME": "/"]), (nil, ["IDEABOX_HOME": "relative/dir"]),
        (nil, ["IDEABOX_HOME": "/private/tmp/x"]),
    ] as [(String?, [String: String])])
    func rootIsStandard(dataDirectory: String?, environment: [String: String]) throws {
        let location = try DataLocation.resolve(dataDirectory: dataDirectory, profile: "laptop", environment: environment)
        var expected: URL
        if let explicit = dataDirectory ?? environment["IDEABOX_HOME"] {
            expected = URL(fileURLWithPath: explicit, isDirectory: true)
        } else if let xdg = environment["XDG_DATA_HOME"] {
            expected = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("ideabox", isDirectory: true)
        } else {
            expected = URL(fileURLWithPath: environment["HOME"]!, isDirectory: true).appendingPathComponent(".local/share/ideabox", isDirectory: true)
        }
        expected = expected.standardizedFileURL
        #expect(location.root == expected)
        #expect(location.rootPath == expected.path)
        #expect(location.profilesPath == location.profileDirectory.deletingLastPathComponent().path)
        #expect(location.profileDirectoryPath == location.profileDirectory.path)
    }

    @Test("The profile: the argument, then IDEABOX_PROFILE, then default", arguments: [
        ("phone", ["IDEABOX_PROFILE": "laptop"], "phone"),
        (nil, ["IDEABOX_PROFILE": "laptop"], "laptop"),
        (nil, ["IDEABOX_PROFILE": ""], "default"),
        (nil, [:], "default"),
        ("a.b_c-1", [:], "a.b_c-1"),
        ("Zz09-._", [:], "Zz09-._"),
    ] as [(String?, [String: String], String)])
    func profilePrecedence(profile: String?, environment: [String: String], expected: String) throws {
        let location = try DataLocation.resolve(dataDirectory: "/root", profile: profile, environment: environment)
        #expect(location.profile == expected)
        #expect(location.profileDirectory.path == "/root/profiles/\(expected)")
    }

    @Test func defaultProfileIsNamedDefault() throws {
        #expect(DataLocation.defaultProfile == "default")
        let location = try DataLocation(root: URL(fileURLWithPath: "/data", isDirectory: true))
        #expect(location.profile == "default")
        #expect(location.profileDirectory.path == "/data/profiles/default")
    }

    static let invalidProfiles = [
        "../x", "", ".hidden", ".", "..", "a/b", "/abs", "a b", "a\\b", "a:b", "靈感", "tab\t", "new\nline",
        String(repeating: "a", count: 65), "café", "Ａ", "٣", "a+b", "a@b", "é" + String(repeating: "a", count: 63),
    ]

    @Test("Invalid profile names are refused", arguments: invalidProfiles)
    func invalidProfile(name: String) {
        let error = DataLocationError.invalidProfile(name)
        #expect(throws: error) { try DataLocation(root: URL(fileURLWithPath: "/data"), profile: name) }
        #expect(throws: error) { try DataLocation.resolve(dataDirectory: "/data", profile: name, environment: [:]) }
        if !name.isEmpty {
            #expect(throws: error) {
                try DataLocation.resolve(dataDirectory: "/data", profile: nil, environment: ["IDEABOX_PROFILE": name])
            }
        }
    }

    @Test func longestProfileNameIsAccepted() throws {
        let name = String(repeating: "a", count: 64)
        #expect(try DataLocation(root: URL(fileURLWithPath: "/data"), profile: name).profile == name)
    }

    @Test("Without a home directory there is no default root", arguments: [
        [:], ["HOME": ""], ["IDEABOX_PROFILE": "x", "USER": "me"],
    ] as [[String: String]])
    func noHome(environment: [String: String]) {
        #expect(throws: DataLocationError.noHome) {
            try DataLocation.resolve(dataDirectory: nil, profile: nil, environment: environment)
        }
    }

    @Test func messagesInBothLanguages() {
        for error in [DataLocationError.invalidProfile("../x"), .noHome] {
            #expect(!error.message(in: .english).isEmpty)
            #expect(!error.message(in: .traditionalChinese).isEmpty)
            #expect(error.message(in: .english) != error.message(in: .traditionalChinese))
        }
        #expect(DataLocationError.invalidProfile("../x").message(in: .english).contains("\"../x\""))
        #expect(DataLocationError.noHome.message(in: .english).contains("--data-dir"))
    }
}
