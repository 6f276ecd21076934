import CloudKitModel
import CloudWebServices
import Crypto
import Foundation
import IdeaBoxFoundation
import ServerStore

/// The served operations for one authenticated account in one container: each reads its
/// request body, refusing anything malformed with `BAD_REQUEST` before the store is
/// touched, and builds the answer CloudKit Web Services gives. The operations live in the
/// extensions by endpoint family (records, query, changes, zones, assets).
struct CloudOperations {
    /// The most operations one request may hold (CloudKit's limit).
    static let maximumOperations = WebServicesFormat.maximumOperations
    /// The most changes one `changes/zone` answer holds.
    static let maximumChangesPerPage = WebServicesFormat.maximumChangesPerPage

    typealias Object = WebServicesFormat.Object

    let store: any RecordZoneStore & SubscriptionStore & RecordSchemaStore
    /// The database the request reaches, as the store names it (`DatabaseOwner.key`): one
    /// per container and environment. Every URL it hands out (assets, webcourier) names it,
    /// so those stay in this database too.
    let owner: String
    /// The account's user record name, as zone ids and records name their owner.
    let userRecordName: String
    /// The container the path names.
    let container: String
    /// Makes the server's asset and webcourier URLs.
    let assetURLs: AssetURLs
    /// Wakes long polls when a request changes a zone.
    let hub: ZoneChangeHub
    /// The field types this process knows (`FieldSchema`).
    let fieldTypes: FieldTypeCache
    /// The device the request says it comes from (`DeviceHeader`), if it named one.
    var device: String?

    func perform(_ operation: WebServicesPath.Operation, _ body: Object) async throws -> Object {
        try await Self.readingBody {
            switch operation {
            case .recordsModify: return try await modifyRecords(body)
            case .recordsQuery: return try await query(body)
            case .changesDatabase: return try await databaseChanges(body, tokenKey: "syncToken")
            case .zonesChanges: return try await databaseChanges(body, tokenKey: "metaSyncToken")
            case .zonesModify: return try await modifyZones(body)
            case .zonesList: return try await listZones()
            case .zonesLookup: return try await lookupZones(body)
            case .assetsUpload: return try await requestUploads(body)
            case .assetsDownload: throw WebServicesError.badRequest("assets/download answers bytes, not JSON.")
            case .usersUsage: throw WebServicesError.badRequest("users/usage is the account's, not a database's.")
            case .usersCurrent: return ["userRecordName": .string(userRecordName)]
            case .usersDiscover: return try discoverUsers(body)
            case .usersCaller: return ["users": [callerIdentity]]
            case .usersLookupContacts: return ["users": []]
            case .usersLookupEmail: return try lookUpUsers(body, by: "emailAddress")
            case .usersLookupID: return try lookUpUsers(body, by: "userRecordName")
            case .tokensRegister: return try registerToken(body)
            case .recordsResolve, .recordsAccept:
                throw WebServicesError(
                    code: "ACCESS_DENIED", reason: "Sharing is not offered by this server: \(operation.rawValue) has no share to work on.")
            case .subscriptionsModify: return try await modifySubscriptions(body)
            case .subscriptionsList: return try await listSubscriptions()
            case .subscriptionsLookup: return try await lookupSubscriptions(body)
            case .tokensCreate: return try createToken(body)
            case .recordsLookup: throw WebServicesError.badRequest("records/lookup is answered as it is read (lookup).")
            case .recordsChanges, .changesZone:
                throw WebServicesError.badRequest("\(operation.rawValue) is written from its records (recordChanges, zonesChanges).")
            }
        }
    }

    /// What `reading` returns, a body it finds malformed (`WebServicesFormat.Invalid`) thrown
    /// as `BAD_REQUEST`.
    static func readingBody<Value>(_ reading: () async throws -> Value) async throws -> Value {
        do {
            return try await reading()
        } catch let invalid as WebServicesFormat.Invalid {
            throw WebServicesError.badRequest(invalid.reason)
        }
    }

    /// How records go out in the answer to `body`: assets with download URLs, numbers as
    /// strings if `numbersAsStrings` asks, the account's user record name in `created` and
    /// `modified`.
    func answer(_ body: Object) throws -> WebServicesFormat.Answer {
        let urls = assetURLs, owner = owner
        return WebServicesFormat.Answer(
            numbersAsStrings: try Self.bool(body["numbersAsStrings"] ?? body["numberAsStrings"], at: "numbersAsStrings") ?? false,
            downloadURL: { urls.download(owner: owner, reference: $0) }, userRecordName: userRecordName)
    }

    // MARK: Reading the body

    /// The `operations` array: 1 to 200 items.
    static func operations(_ body: Object) throws -> [JSONValue] {
        guard let operations = body["operations"]?.array else {
            throw WebServicesError.badRequest("operations must be an array.")
        }
        guard operations.count <= maximumOperations else { throw CloudError.limitExceeded }
        return operations
    }

    /// `desiredKeys`: the fields each record of the answer holds; all of them when absent.
    static func desiredKeys(_ body: Object) throws -> Set<String>? {
        guard let json = body["desiredKeys"], json != .null else { return nil }
        guard let names = json.array, names.count <= maximumOperations else {
            throw WebServicesError.badRequest("desiredKeys must be an array of at most \(maximumOperations) field names.")
        }
        return Set(try names.enumerated().map { try WebServicesFormat.typeName($1, at: "desiredKeys[\($0)]") })
    }

    static func bool(_ json: JSONValue?, at path: String) throws -> Bool? {
        guard let json, json != .null else { return nil }
        guard let flag = json.bool else { throw WebServicesError.badRequest("\(path) must be true or false.") }
        return flag
    }

    /// `resultsLimit`: 1 to `maximum`, `maximum` when absent.
    static func limit(_ json: JSONValue?, maximum: Int) throws -> Int {
        guard let json, json != .null else { return maximum }
        guard let number = json.wholeNumber, (1...Int64(maximum)).contains(number) else {
            throw WebServicesError.badRequest("resultsLimit must be a whole number from 1 to \(maximum).")
        }
        return Int(number)
    }

    /// `record` with only the fields `desiredKeys` names (all of them if nil), as JSON.
    static func object(_ record: RemoteRecord, desiredKeys: Set<String>?, _ answer: WebServicesFormat.Answer) -> JSONValue {
        var record = record
        if let desiredKeys { record.fields = record.fields.filter { desiredKeys.contains($0.key) } }
        return .object(WebServicesFormat.object(record, answer))
    }
}

/// The server's own URLs for asset bytes, signed with the store's secret (see `AssetTicket`).
struct AssetURLs: Sendable {
    /// `http://host:port`, as the request named the server.
    let base: String
    let secret: Data
    /// The hash of the access token that asked: each URL serves only while it is valid.
    let tokenHash: String?
    let clock: WallClock

    /// Where the bytes of one asset of `owner` are POSTed, for the next 15 minutes.
    func upload(owner: String) -> String {
        let ticket = AssetTicket(
            kind: .upload, owner: owner, expires: clock.now().adding(milliseconds: AssetTicket.uploadLifetime), tokenHash: tokenHash)
        return "\(base)/assets/upload/\(ticket.encoded(secret: SymmetricKey(data: secret)))"
    }

    /// Where `owner`'s devices long-poll for notifications in `container`, for a week: the
    /// polls of `device`, if it named itself, which its own saves do not wake.
    func webcourier(owner: String, container: String, device: String?) -> String {
        let ticket = AssetTicket(
            kind: .webcourier, owner: owner, subject: container, expires: clock.now().adding(milliseconds: AssetTicket.webcourierLifetime),
            tokenHash: tokenHash, device: device)
        return "\(base)/webcourier/\(ticket.encoded(secret: SymmetricKey(data: secret)))"
    }

    /// Where the bytes of `reference` of `owner` are read, for the next hour.
    func download(owner: String, reference: AssetReference) -> String {
        let ticket = AssetTicket(
            kind: .download, owner: owner, subject: reference.checksum,
            expires: clock.now().adding(milliseconds: AssetTicket.downloadLifetime), tokenHash: tokenHash)
        return "\(base)/assets/download/\(ticket.encoded(secret: SymmetricKey(data: secret)))"
    }
}
