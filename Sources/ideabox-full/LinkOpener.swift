import ChildProcess
import Foundation

/// `g x` in the app: the link handed to `xdg-open`, found on `PATH`, in a session of its
/// own with its output thrown away, so nothing it prints lands on the app's screen.
enum LinkOpener {
    /// Starts `xdg-open link`; false if there is no `xdg-open` on `PATH` or it could not start.
    static func open(_ link: String, environment: [String: String]) -> Bool {
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard let opener = directories.map({ $0 + "/xdg-open" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
              let child = try? ChildProcess.start(
                opener, [link], environment: environment, output: "/dev/null", error: "/dev/null", newSession: true)
        else { return false }
        // Reaped when it ends, on a thread of its own, so no zombie stays behind.
        Thread { _ = try? child.waitForExit() }.start()
        return true
    }
}
