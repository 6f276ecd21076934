import CloudServer
import Foundation
import Testing

/// Case 56 of the conformance list: assets/upload's tokens, the self-authorising upload URL,
/// ASSETID fields in a save and ASSET fields with a downloadURL in answers.
@Suite("Conformance: assets (case 56)", .serialized)
struct AssetConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "assets/upload gives a url per token, generating a missing recordName; a POST of the bytes there without credentials answers singleFile; saved as ASSETID (or untyped), a lookup answers ASSET with a downloadURL that returns exactly the bytes",
        arguments: ConformanceStore.tested)
    func uploadSaveDownload(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let answer = try await server.post("assets/upload", [
            "zoneID": Server.zoneID(Server.ideas),
            "tokens": [["recordType": "Idea", "fieldName": "image"], ["recordName": "a2", "recordType": "Idea", "fieldName": "image"]],
        ])
        let tokens = answer.json["tokens"].array ?? []
        try #require(answer.status == 200 && tokens.count == 2, "\(answer)")
        let generated = try #require(tokens[0]["recordName"].string, "\(answer)")
        #expect(!generated.isEmpty && tokens[1]["recordName"] == "a2", "\(answer)")
        #expect(tokens.allSatisfy { $0["fieldName"] == "image" }, "\(answer)")

        let pictures = [Self.bytes("first"), Self.bytes("second")]
        for (index, token) in tokens.enumerated() {
            let url = try #require(token["url"].string.flatMap { URL(string: $0) }, "\(token)")
            #expect(url.scheme == "http" && url.host != nil, "not absolute: \(url)")
            let file = try await Self.upload(pictures[index], to: url, server: server)
            let name = try #require(token["recordName"].string)
            var asset: [String: Any] = ["value": file.foundationValue]
            if index == 0 { asset["type"] = "ASSETID" }
            let saved = try await server.modify([Server.operation("create", name, fields: ["image": asset])])
            #expect(saved.status == 200 && saved.records.first?.isRecord(name) == true, "\(saved)")

            let record = try await server.record(name)
            #expect(record["fields"]["image"]["type"] == "ASSET", "\(record)")
            let download = try #require(record.field("image")["downloadURL"].string.flatMap { URL(string: $0) }, "\(record)")
            let fetched = try await server.fetch(download)
            #expect(fetched.status == 200 && fetched.body == pictures[index], "HTTP \(fetched.status), \(fetched.body.count) bytes")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "An upload url belongs to one account: what is uploaded through alice's url cannot be named in bob's records, and bob cannot look up her record",
        arguments: ConformanceStore.tested)
    func accountsKeepTheirAssets(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let url = try await Self.uploadURL(server, recordName: "picture")
        let file = try await Self.upload(Self.bytes("alice's"), to: url, server: server)
        let saved = try await server.modify([Server.operation("create", "picture", fields: ["image": ["value": file.foundationValue, "type": "ASSETID"]])])
        #expect(saved.records.first?.isRecord("picture") == true, "\(saved)")

        let stolen = try await server.modify(
            [Server.operation("create", "stolen", fields: ["image": ["value": file.foundationValue, "type": "ASSETID"]])], as: server.bob)
        let refused = stolen.status >= 400 || stolen.records.first?["serverErrorCode"].string != nil
        #expect(refused, "bob saved alice's upload: \(stolen)")
        // Named as the asset that is missing, not as a missing record (ours).
        #expect(stolen.records.first?["reason"].string?.hasPrefix("An asset named in image was never uploaded to this account") == true, "\(stolen)")
        #expect(try await server.record("stolen", as: server.bob)["serverErrorCode"] == "NOT_FOUND")
        let looked = try await server.record("picture", as: server.bob)
        #expect(looked.isRecordError("NOT_FOUND", recordName: "picture"), "\(looked)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A tampered or malformed upload or download url reads and writes nothing: a 4xx with an error dictionary, never another account's bytes",
        arguments: ConformanceStore.tested)
    func tamperedURLs(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let aliceBytes = Self.bytes("alice's"), bobBytes = Self.bytes("bob's")
        let aliceDownload = try await Self.storedAsset(aliceBytes, server: server, as: server.alice)
        let bobDownload = try await Self.storedAsset(bobBytes, server: server, as: server.bob)
        let aliceUpload = try await Self.uploadURL(server, recordName: "later")

        var downloads = Self.tampered(aliceDownload)
        if let spliced = Self.splice(path: aliceDownload, query: bobDownload) { downloads.append(spliced) }
        if let spliced = Self.splice(path: bobDownload, query: aliceDownload) { downloads.append(spliced) }
        for url in downloads {
            let answer = try await server.fetch(url)
            #expect((400..<500).contains(answer.status) && answer.errorCode != nil, "GET \(url.path): HTTP \(answer.status)")
            #expect(answer.body != aliceBytes && answer.body != bobBytes, "GET \(url.path) gave an asset's bytes")
        }
        for url in Self.tampered(aliceUpload) {
            let answer = try await server.fetch(url, method: "POST", body: Self.bytes("forged"))
            #expect((400..<500).contains(answer.status) && answer.errorCode != nil, "POST \(url.path): HTTP \(answer.status)")
            #expect(answer.json["singleFile"] == .null, "POST \(url.path): \(answer)")
        }
        let intact = try await server.fetch(aliceDownload)
        #expect(intact.status == 200 && intact.body == aliceBytes)
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Signed URLs end with their token: revoking the token that asked, revoking the account or deleting it (and making the name anew) refuses its upload, download and webcourier URLs at once",
        arguments: ConformanceStore.tested)
    func signedURLsEndWithTheirToken(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let alice = server.alice.name
        // A second device of alice's, with a token of its own.
        let phone = ConformanceAccount(name: alice, webToken: AccessToken.generate())
        try await server.store.addAccessToken(hash: AccessToken.hash(phone.webToken), account: alice, label: "phone")
        let download = try await Self.storedAsset(Self.bytes("alice's"), server: server, as: phone)
        let upload = try await Self.uploadURL(server, recordName: "later", as: phone)
        let webcourier = try await Self.webcourierURL(server, as: phone)
        let kept = try await Self.uploadURL(server, recordName: "kept", as: server.alice)
        #expect(try await server.fetch(download).status == 200)

        #expect(try await server.store.revokeAccessToken(account: alice, label: "phone") == 1)
        try await Self.expectRefused(download, upload, webcourier, server: server)
        // The other device's URLs still serve.
        #expect(try await server.fetch(kept, method: "POST", body: Self.bytes("kept")).status == 200)

        let laptop = try await Self.urls(server, as: server.alice)
        _ = try await server.store.revokeAccessTokens(account: alice)
        try await Self.expectRefused(laptop.download, laptop.upload, laptop.webcourier, server: server)

        // Deleted, then made anew under the same name: the old account's URLs reach nothing.
        let renewed = ConformanceAccount(name: alice, webToken: AccessToken.generate())
        try await server.store.addAccessToken(hash: AccessToken.hash(renewed.webToken), account: alice, label: "laptop")
        let before = try await Self.urls(server, as: renewed)
        _ = try await server.store.deleteAccount(alice)
        try await server.store.addAccessToken(hash: AccessToken.hash(AccessToken.generate()), account: alice, label: "laptop")
        try await Self.expectRefused(before.download, before.upload, before.webcourier, server: server)
        #expect(try await server.store.usage(account: alice).assetBytes == 0, "an old URL wrote into the new account")
        #expect(server.sweepFindings == [])
    }

    /// A download, an upload and a webcourier URL made for `account`'s token.
    private static func urls(_ server: ConformanceServer, as account: ConformanceAccount) async throws -> (download: URL, upload: URL, webcourier: URL) {
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": Server.ideas]]]]], as: account)
        let download = try await storedAsset(bytes("mine"), server: server, as: account, recordName: "asset-\(UUID().uuidString)")
        return (download, try await uploadURL(server, recordName: "next", as: account), try await webcourierURL(server, as: account))
    }

    /// A webcourier URL for `account`, whose poll watches the Ideas zone.
    private static func webcourierURL(_ server: ConformanceServer, as account: ConformanceAccount) async throws -> URL {
        _ = try await server.post("subscriptions/modify", ["operations": [[
            "operationType": "create", "subscription": ["subscriptionType": "zone", "subscriptionID": "ideas", "zoneID": ["zoneName": Server.ideas]],
        ]]], as: account)
        let token = try await server.post("tokens/create", ["apnsEnvironment": "production"], as: account, in: "/database/1/\(Server.container)/production")
        return try #require(token.json["webcourierURL"].string.flatMap(URL.init(string:)), "\(token)")
    }

    /// Whether each URL is refused (401 `AUTHENTICATION_FAILED`), writing and reading nothing.
    private static func expectRefused(_ download: URL, _ upload: URL, _ webcourier: URL, server: ConformanceServer) async throws {
        let read = try await server.fetch(download)
        #expect(read.isError("AUTHENTICATION_FAILED", status: 401), "GET \(download.path): \(read)")
        let written = try await server.fetch(upload, method: "POST", body: bytes("after"))
        #expect(written.isError("AUTHENTICATION_FAILED", status: 401), "POST \(upload.path): \(written)")
        let polled = try await server.fetch(URL(string: webcourier.absoluteString + "?timeout=1")!)
        #expect(polled.isError("AUTHENTICATION_FAILED", status: 401), "GET \(webcourier.path): \(polled)")
    }

    @Test("assets/upload takes at most 200 tokens (201 is a 400 BAD_REQUEST), and each needs a fieldName", arguments: ConformanceStore.tested)
    func tokenLimits(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let token: [String: Any] = ["recordType": "Idea", "fieldName": "image"]
        let most = try await server.post("assets/upload", ["zoneID": Server.zoneID(Server.ideas), "tokens": Array(repeating: token, count: 200)])
        #expect(most.status == 200 && most.json["tokens"].array?.count == 200, "HTTP \(most.status) \(most.errorCode ?? "")")
        let tooMany = try await server.post("assets/upload", ["zoneID": Server.zoneID(Server.ideas), "tokens": Array(repeating: token, count: 201)])
        #expect(tooMany.isError("BAD_REQUEST", status: 400), "\(tooMany)")
        let unnamed = try await server.post("assets/upload", ["zoneID": Server.zoneID(Server.ideas), "tokens": [["recordType": "Idea"]]])
        #expect(unnamed.isError("BAD_REQUEST", status: 400), "\(unnamed)")
        #expect(server.sweepFindings == [])
    }

    /// Bytes that are no JSON and no text: every byte value, then `label`.
    static func bytes(_ label: String) -> Data {
        Data((0...255).map { UInt8($0) } + Array("靈感 \(label)".utf8))
    }

    /// An upload url for the field `image` of `recordName` in Ideas, for `account` (alice when nil).
    static func uploadURL(_ server: ConformanceServer, recordName: String, as account: ConformanceAccount? = nil) async throws -> URL {
        let answer = try await server.post(
            "assets/upload", ["zoneID": Server.zoneID(Server.ideas), "tokens": [["recordName": recordName, "recordType": "Idea", "fieldName": "image"]]],
            as: account)
        return try #require(answer.json["tokens"][0]["url"].string.flatMap { URL(string: $0) }, "\(answer)")
    }

    /// POSTs `data` to `url` without credentials and returns the `singleFile` dictionary.
    static func upload(_ data: Data, to url: URL, server: ConformanceServer) async throws -> ReceivedJSON {
        let answer = try await server.fetch(url, method: "POST", body: data)
        let file = answer.json["singleFile"]
        #expect(answer.status == 200, "\(answer)")
        #expect(file["fileChecksum"].string?.isEmpty == false && file["receipt"].string?.isEmpty == false, "\(answer)")
        #expect(file["size"] == .integer(Int64(data.count)), "\(answer)")
        return file
    }

    /// Uploads `data` for `account`, saves it in the record `recordName`, and returns the
    /// record's downloadURL.
    static func storedAsset(
        _ data: Data, server: ConformanceServer, as account: ConformanceAccount, recordName: String = "asset"
    ) async throws -> URL {
        let url = try await uploadURL(server, recordName: recordName, as: account)
        let file = try await upload(data, to: url, server: server)
        let saved = try await server.modify(
            [Server.operation("create", recordName, fields: ["image": ["value": file.foundationValue, "type": "ASSETID"]])], as: account)
        #expect(saved.records.first?.isRecord(recordName) == true, "\(saved)")
        let record = try await server.record(recordName, as: account)
        return try #require(record.field("image")["downloadURL"].string.flatMap { URL(string: $0) }, "\(record)")
    }

    /// `url` with the last character of its longest path segment (where a secret would be)
    /// changed, then that segment cut in half, then the last character of its query (if any)
    /// changed.
    static func tampered(_ url: URL) -> [URL] {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return [] }
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let longest = segments.indices.max(by: { segments[$0].count < segments[$1].count }), segments[longest].count > 1 else { return [] }
        let secret = segments[longest]
        var results: [URL] = []
        for replacement in [changingLastCharacter(secret), firstHalf(secret)] {
            segments[longest] = replacement
            var changed = components
            changed.percentEncodedPath = segments.joined(separator: "/")
            results += [changed.url].compactMap { $0 }
        }
        if let query = components.percentEncodedQuery, !query.isEmpty {
            var changed = components
            changed.percentEncodedQuery = changingLastCharacter(query)
            results += [changed.url].compactMap { $0 }
        }
        return results
    }

    /// The path of `path` with the query of `query`, when either has a query.
    static func splice(path: URL, query: URL) -> URL? {
        guard var components = URLComponents(url: path, resolvingAgainstBaseURL: false),
              let other = URLComponents(url: query, resolvingAgainstBaseURL: false),
              components.percentEncodedQuery != nil || other.percentEncodedQuery != nil,
              components.percentEncodedQuery != other.percentEncodedQuery
        else { return nil }
        components.percentEncodedQuery = other.percentEncodedQuery
        return components.url
    }

    /// The first half of `text`, never ending inside a percent escape (which URLComponents refuses).
    private static func firstHalf(_ text: String) -> String {
        var half = String(text.prefix(text.count / 2))
        while let percent = half.lastIndex(of: "%"), half.distance(from: percent, to: half.endIndex) < 3 {
            half = String(half[..<percent])
        }
        return half
    }

    private static func changingLastCharacter(_ text: String) -> String {
        text.isEmpty ? text : Forgery.replacing(characterAt: text.count - 1, of: text)
    }
}
