import Foundation
import IdeaBoxFoundation
import Testing

/// `standardizedFileURLQuickly` is `standardizedFileURL`, and skips its work only for paths
/// already in standard form.
@Suite struct URLStandardPathTests {
    static let paths = [
        "/", "/tmp", "/tmp/ideabox", "/home/me/.local/share/ideabox", "/a b/靈感 咖啡/x%20y", "/a/b#c/d?e", "/.hidden/x",
        "/a/b/../c", "/a/./b", "/a//b", "/a/b/", "/a/..", "/a/.", "/private/tmp/x", "/var/automount/x", "/..a/b..", "/.../x",
        "relative/path", "~/notes", "~", ".",
    ]

    @Test("The same URL as standardizedFileURL", arguments: paths, [false, true])
    func sameAsFoundation(path: String, isDirectory: Bool) {
        let url = URL(fileURLWithPath: path, isDirectory: isDirectory)
        #expect(url.standardizedFileURLQuickly == url.standardizedFileURL)
        #expect(url.standardizedFileURLQuickly.absoluteString == url.standardizedFileURL.absoluteString)
        #expect(url.standardizedFileURLQuickly.path == url.standardizedFileURL.path)
    }

    @Test func builtURLsToo() {
        let root = URL(fileURLWithPath: "/data root", isDirectory: true)
        for url in [
            root.appendingPathComponent("profiles", isDirectory: true).appendingPathComponent("laptop", isDirectory: true),
            root.appendingPathComponent(".local/share/ideabox", isDirectory: true), root.appendingPathComponent("ideabox.sqlite"),
        ] {
            #expect(url.standardizedFileURLQuickly == url.standardizedFileURL, "\(url)")
        }
    }

    @Test func onlyStandardPathsSkipTheWork() {
        for path in ["/", "/tmp", "/a b/靈感", "/.hidden/x", "/..a/b..", "/.../x"] {
            #expect(URL.isStandardPath(path), "\(path)")
        }
        for path in ["", "tmp", "~/x", "/a/../b", "/a/./b", "/a//b", "/a/", "/a/..", "/a/.", "/private/tmp", "/var/automount/x"] {
            #expect(!URL.isStandardPath(path), "\(path)")
        }
    }
}
