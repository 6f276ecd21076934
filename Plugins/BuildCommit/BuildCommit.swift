import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` into the target it builds: the short commit of the package's
/// checkout, read with `git` before every build, or `unknown` where there is no git or no
/// repository (a source archive). It reads the local repository only: no network. The file
/// is rewritten only when the commit changed, so an unchanged checkout rebuilds nothing.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildCommit", isDirectory: true)
        return [
            .prebuildCommand(
                displayName: "Reading the commit of \(context.package.directoryURL.lastPathComponent)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "build-commit", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output),
        ]
    }

    /// `$1`: the package folder; `$2`: the folder to write `BuildCommit.swift` in.
    private static let script = #"""
        commit=$(git -c safe.directory="$1" -C "$1" rev-parse --short=7 HEAD 2>/dev/null) || commit=""
        [ -n "$commit" ] || commit=unknown
        file="$2/BuildCommit.swift"
        text=$(printf '/// The commit this binary was built from (`git rev-parse --short HEAD`), or `unknown`.\nlet buildCommit = "%s"' "$commit")
        mkdir -p "$2"
        [ -f "$file" ] && [ "$(cat "$file")" = "$text" ] || printf '%s\n' "$text" > "$file"
        """#
}
