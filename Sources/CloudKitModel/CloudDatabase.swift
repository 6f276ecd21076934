import Foundation

/// A client's view of one account's private database on the remote.
///
/// Synchronous and throwing, because the sync engine calls it from its own Dispatch queue.
/// Every method throws only `CloudError`.
public protocol CloudDatabase: Sendable {
    /// The most saves plus deletes the server accepts in one `modify`; more is `limitExceeded`.
    var maximumRecordsPerRequest: Int { get }

    /// Whether the device is signed in, and to which account. Answered by the device
    /// itself, so it works offline.
    func accountStatus() throws -> AccountStatus

    /// Creates `zone` if it does not exist; an existing zone keeps its records.
    func createZone(_ zone: RecordZoneID) throws

    /// Deletes `zone` with its records and history; deleting a missing zone succeeds.
    /// Change tokens of the zone expire, even if a zone of the same name is created again.
    func deleteZone(_ zone: RecordZoneID) throws

    /// Saves and deletes records in one request.
    ///
    /// Deletes are applied before saves, so a record both deleted and saved in one request
    /// ends up saved; a record id should appear once among the saves. Items fail one by one (see `ModifyResult.failures`)
    /// and the other items are committed together, so a reader sees all of them or none.
    /// Throws `limitExceeded` above `maximumRecordsPerRequest` items and `zoneNotFound` if
    /// any item's zone is missing, applying nothing in either case.
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult

    /// At most `resultsLimit` changes of `zone` after `token` (from the beginning if nil),
    /// in server change order. Throws `changeTokenExpired` for a token the zone's history no
    /// longer covers, `zoneNotFound` for a missing zone.
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges

    /// Every record of type `recordType` in `zone`, by record name.
    func records(in zone: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord]

    /// Stores `data` as an asset of this account and returns its reference, for a record
    /// field that names it. Content-addressed: the same bytes uploaded twice are one asset.
    /// Throws `limitExceeded` above `AssetReference.maximumSize` bytes.
    func uploadAsset(_ data: Data) throws -> AssetReference

    /// The bytes of an asset this account uploaded, checked against the reference; throws
    /// `unknownItem` if the account has no such asset.
    func fetchAsset(_ reference: AssetReference) throws -> Data
}
