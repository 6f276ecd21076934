import CloudHTTPClient
import Foundation
import Testing

/// A profile's server.json, and the tokens Apple hands out in place of the sign-in's: kept in
/// a file of their own, so that server.json (whose every new version a running app follows as
/// a new sign-in) changes only when the person signs in or out.
@Suite struct ServerCredentialsTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("credentials-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func iCloud(token: String?) -> ServerCredentials {
        var credentials = ServerCredentials(
            server: URL(string: "https://api.apple-cloudkit.com")!, account: "_3f2a9c", token: token,
            container: "iCloud.com.buildwithharry.IdeaBox", apiToken: String(repeating: "a", count: 64))
        credentials.isICloud = true
        credentials.environment = "development"
        return credentials
    }

    @Test func aTokenHandedOutReplacesTheSignInsWithoutTouchingServerJSON() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.iCloud(token: "first+/=").save(to: folder)
        let file = folder.appendingPathComponent(ServerCredentials.fileName)
        let before = try Data(contentsOf: file)
        let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date

        try ServerCredentials.replaceToken("first+/=", with: "second", in: folder)
        try ServerCredentials.replaceToken("second", with: "third", in: folder)
        #expect(try ServerCredentials.load(from: folder)?.token == "third")
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date == modified)
        let rotated = folder.appendingPathComponent(ServerCredentials.rotatedTokenFileName)
        #expect(try FileManager.default.attributesOfItem(atPath: rotated.path)[.posixPermissions] as? Int == 0o600)

        // A token that was not the latest (another process's, late) changes nothing.
        try ServerCredentials.replaceToken("second", with: "stale", in: folder)
        #expect(try ServerCredentials.load(from: folder)?.token == "third")
    }

    @Test func aNewSignInOrASignOutLeavesNoEarlierTokenBehind() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.iCloud(token: "first").save(to: folder)
        try ServerCredentials.replaceToken("first", with: "second", in: folder)
        try Self.iCloud(token: "new sign-in").save(to: folder)
        #expect(try ServerCredentials.load(from: folder)?.token == "new sign-in")
        try ServerCredentials.replaceToken("second", with: "late", in: folder)
        #expect(try ServerCredentials.load(from: folder)?.token == "new sign-in", "a hand-out for the sign-in before is not this one's")

        var signedOut = try #require(try ServerCredentials.load(from: folder))
        signedOut.token = nil
        try signedOut.save(to: folder)
        try ServerCredentials.replaceToken("new sign-in", with: "after", in: folder)
        #expect(try ServerCredentials.load(from: folder)?.token == nil, "signed out stays signed out")
        let loaded = try #require(try ServerCredentials.load(from: folder))
        #expect(loaded.isICloud == true && loaded.environment == "development")
    }

    @Test func aFileFromBeforeICloudReadsAsAServersInProduction() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"account":"alice","server":"http://127.0.0.1:8420","token":"t"}"#.utf8)
            .write(to: folder.appendingPathComponent(ServerCredentials.fileName))
        let loaded = try #require(try ServerCredentials.load(from: folder))
        #expect(loaded.isICloud == nil && loaded.environment == nil && loaded.token == "t")
        #expect(loaded.database(unnamedContainer: "iCloud.ideabox").endpoint.environment == "production")
    }
}
