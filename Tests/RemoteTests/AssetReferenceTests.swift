import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import ServerStore
import Testing

/// Assets: files above the record size limit, stored by their SHA-256 beside the records
/// that name them, on every kind of remote.
@Suite struct AssetReferenceTests {
    /// 3 MB of bytes no two tests share.
    static func largeData(_ seed: UInt8 = 7) -> Data {
        Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    /// A `File` record whose `data` field names `reference`.
    static func file(_ name: String, _ reference: AssetReference) -> RemoteRecord {
        RemoteRecord(recordType: "File", recordID: id(name), fields: ["name": .string(name), "data": .asset(reference)])
    }

    @Test("A reference is the SHA-256 and size of the bytes; a malformed one is refused")
    func reference() throws {
        let reference = AssetReference(of: Data("abc".utf8))
        #expect(reference.checksum == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(reference.size == 3 && reference.matches(Data("abc".utf8)) && !reference.matches(Data("abd".utf8)))
        #expect(AssetReference(checksum: reference.checksum.uppercased(), size: 3) == nil)
        #expect(AssetReference(checksum: "ab", size: 3) == nil)
        #expect(AssetReference(checksum: reference.checksum, size: -1) == nil)
        #expect(AssetReference(checksum: reference.checksum, size: Int64(AssetReference.maximumSize) + 1) == nil)
        let field = FieldValue.asset(reference)
        #expect(try FieldValue(stored: JSONValue(parsing: Array(field.jsonText.utf8))) == field)
        #expect(try JSONDecoder().decode(FieldValue.self, from: Data(field.jsonText.utf8)) == field)
    }

    @Test("An uploaded asset comes back byte for byte; the same bytes twice are one asset", arguments: RemoteKind.tested)
    func roundTrip(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let data = Self.largeData()
        let reference = try database.uploadAsset(data)
        #expect(reference == AssetReference(of: data))
        #expect(try database.uploadAsset(data) == reference)
        #expect(try database.fetchAsset(reference) == data)
        #expect(try database.uploadAsset(Data()) == AssetReference(of: Data()))
        #expect(try database.fetchAsset(AssetReference(of: Data())) == Data())
    }

    @Test("A record naming an uploaded asset is saved and read back with it; one naming an asset not uploaded fails with unknownItem",
          arguments: RemoteKind.tested)
    func recordsNameAssets(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let reference = try database.uploadAsset(Self.largeData())
        let missing = AssetReference(of: Self.largeData(8))
        let wrongSize = try #require(AssetReference(checksum: reference.checksum, size: reference.size - 1))
        let result = try database.modify(
            saving: [Self.file("kept", reference), Self.file("missing", missing), Self.file("wrongSize", wrongSize)],
            deleting: [], savePolicy: .allKeys)
        #expect(result.saved.map(\.recordID) == [id("kept")])
        #expect(result.failures == [id("missing"): .unknownItem, id("wrongSize"): .unknownItem])
        let changes = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10)
        #expect(changes.changed.map { $0.fields["data"] } == [.asset(reference)])
        #expect(cloudError { try database.fetchAsset(missing) } == .unknownItem)
    }

    @Test("Faults apply to asset requests as to any other: offline refuses both, nothing is stored", arguments: RemoteKind.tested)
    func faults(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        let data = Self.largeData()
        try fixture.faults.network.setOffline(true, device: "laptop")
        #expect(cloudError { try database.uploadAsset(data) } == .networkUnavailable)
        try fixture.faults.network.setOffline(false, device: "laptop")
        #expect(cloudError { try database.fetchAsset(AssetReference(of: data)) } == .unknownItem)
        try fixture.faults.network.scriptErrors([ScriptedError(.internalError, operation: .uploadAsset)], device: "laptop")
        #expect(cloudError { try database.uploadAsset(data) } == .internalError)
        #expect(try database.uploadAsset(data) == AssetReference(of: data))
    }
}
