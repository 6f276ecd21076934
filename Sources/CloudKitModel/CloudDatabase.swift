import Foundation

/// A client's view of one account's private database on the remote.
///
/// Asynchronous and throwing: a request waits for its answer without holding a thread, and the
/// sync engine's Dispatch loop crosses into it in one place (a run's task). Every method throws
/// only `CloudError` (or, through the encryption layer, `AccountLocked`).
public protocol CloudDatabase: Sendable {
    /// The most saves plus deletes the server accepts in one `modify`; more is `limitExceeded`.
    var maximumRecordsPerRequest: Int { get }

    /// Whether the device is signed in, and to which account. Answered by the device
    /// itself, so it works offline; asynchronous because an encrypting layer looks at the
    /// account's key envelope on the remote before it answers.
    func accountStatus() async throws -> AccountStatus

    /// Creates `zone` if it does not exist; an existing zone keeps its records.
    func createZone(_ zone: RecordZoneID) async throws

    /// Deletes `zone` with its records and history; deleting a missing zone succeeds.
    /// Change tokens of the zone expire, even if a zone of the same name is created again.
    func deleteZone(_ zone: RecordZoneID) async throws

    /// Saves and deletes records in one request.
    ///
    /// Deletes are applied before saves, so a record both deleted and saved in one request
    /// ends up saved; a record id should appear once among the saves. Items fail one by one (see `ModifyResult.failures`)
    /// and the other items are committed together, so a reader sees all of them or none.
    /// Throws `limitExceeded` above `maximumRecordsPerRequest` items and `zoneNotFound` if
    /// any item's zone is missing, applying nothing in either case.
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult

    /// At most `resultsLimit` changes of `zone` after `token` (from the beginning if nil),
    /// in server change order. Throws `changeTokenExpired` for a token the zone's history no
    /// longer covers, `zoneNotFound` for a missing zone.
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges

    /// Every record of type `recordType` in `zone`, by record name.
    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord]

    /// Stores `data` as an asset of this account and returns its reference, for a record
    /// field that names it. Content-addressed: the same bytes uploaded twice are one asset.
    /// Throws `limitExceeded` above `AssetReference.maximumSize` bytes.
    func uploadAsset(_ data: Data) async throws -> AssetReference

    /// The bytes of an asset this account uploaded, checked against the reference; throws
    /// `unknownItem` if the account has no such asset.
    func fetchAsset(_ reference: AssetReference) async throws -> Data
}
