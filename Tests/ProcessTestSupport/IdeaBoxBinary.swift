import Foundation

/// The built `ideabox` executable the command-line and end-to-end tests run: found once,
/// here, for both suites.
public enum IdeaBoxBinary {
    /// The executable: `$IDEABOX_CLI_BINARY` if set (`.ci/run` points it at the static build
    /// users install), else `ideabox` in the folder of the running test binary or one of its
    /// parents (SwiftPM puts both in one products folder).
    public static func url() throws -> URL {
        try located.get()
    }

    private static let located: Result<URL, IdeaBoxBinaryError> = {
        let fileManager = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["IDEABOX_CLI_BINARY"], !explicit.isEmpty {
            return fileManager.isExecutableFile(atPath: explicit)
                ? .success(URL(fileURLWithPath: explicit))
                : .failure(IdeaBoxBinaryError(description: "IDEABOX_CLI_BINARY=\(explicit) is not an executable file."))
        }
        let runner = (try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: runner).standardizedFileURL.deletingLastPathComponent()
        var searched: [String] = []
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent("ideabox")
            searched.append(candidate.path)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               fileManager.isExecutableFile(atPath: candidate.path) {
                return .success(candidate)
            }
            folder.deleteLastPathComponent()
        }
        return .failure(IdeaBoxBinaryError(description: """
            The ideabox executable was not found next to the test runner \(runner); looked at \
            \(searched.joined(separator: ", ")). Build it in the same build folder (`swift build`), \
            or set IDEABOX_CLI_BINARY.
            """))
    }()
}

/// Why no `ideabox` executable could be found.
public struct IdeaBoxBinaryError: Error, CustomStringConvertible {
    public let description: String
}
