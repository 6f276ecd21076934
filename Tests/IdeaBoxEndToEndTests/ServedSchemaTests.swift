import Foundation
import ProcessTestSupport
import Testing

/// Issue 40 part 4 through the real binaries: IdeaBox's own devices sync ideas and library
/// files (one kept inline as BYTES, one as an asset) through `serve`, which now holds them
/// to CloudKit's schema rules, and `serve account schema` lists the types their first saves set.
@Suite(.takesTurns) struct ServedSchemaTests {
    @Test func ownDevicesSyncUnderTheSchemaAndTheOperatorListsIt() async throws {
        let (server, token, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        #expect(try await server.command(["account", "schema", "alice"]) == "Account alice has no field types yet: the first save of each field sets its type.")
        let device = try DeviceProcess()
        try await device.run(["account", "sign-in", "alice", "--server", url, "--token", token])
        try await device.run(["add", "A typed idea", "-d", "with a description"])
        try await device.run(["sync"])
        let items = device.dataRoot.appendingPathComponent("profiles/default/RawLibrary/Items", isDirectory: true)
        try FileManager.default.createDirectory(at: items, withIntermediateDirectories: true)
        try Data(#"{"note": "small"}"#.utf8).write(to: items.appendingPathComponent("small.json"))
        let large = #"{"note": ""# + String(repeating: "x", count: 1_200_000) + #""}"#
        try Data(large.utf8).write(to: items.appendingPathComponent("large.json"))
        try await device.run(["library", "sync"])
        try Data(#"{"note": "small, edited"}"#.utf8).write(to: items.appendingPathComponent("large.json"))
        try await device.run(["library", "sync"])

        let listed = try await server.command(["account", "schema", "alice"]).split(separator: "\n").map(String.init)
        #expect(listed.contains("first container, production  Idea.title  STRING"), "\(listed)")
        // Whichever of the two files came first set it; the other went through all the same.
        let filedata = ["BYTES", "ASSET"].map { "first container, production  RawLibraryFile.filedata  \($0)" }
        #expect(listed.contains { filedata.contains($0) }, "\(listed)")
        #expect(listed.allSatisfy { $0.hasPrefix("first container, production  ") }, "\(listed)")
        let other = try DeviceProcess()
        try await other.run(["account", "sign-in", "alice", "--server", url, "--token", token])
        try await other.run(["sync"])
        try await other.run(["library", "sync"])
        #expect(try await other.run(["list"]).contains("A typed idea"))
        let arrived = other.dataRoot.appendingPathComponent("profiles/default/RawLibrary/Items/large.json")
        #expect(try Data(contentsOf: arrived) == Data(#"{"note": "small, edited"}"#.utf8))
    }
}
