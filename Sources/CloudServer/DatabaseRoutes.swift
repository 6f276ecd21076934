import CloudKitModel
import CloudWebServices
import Foundation
import Hummingbird
import IdeaBoxFoundation
import ServerStore

/// CloudKit Web Services' operations, `/database/1/CONTAINER/ENVIRONMENT/DATABASE/FAMILY/ACTION`,
/// a route group per family of operations. Every request is hostile until shown otherwise:
/// the path is checked first (`DatabasePathMiddleware`), then the credentials
/// (`AuthenticationMiddleware`: none, or bad ones, touch nothing), then the body's size (at
/// most `maximumBodyBytes`) and its JSON, and only then does anything reach the store. The
/// account comes from the web auth token alone, so no name in a body can reach another
/// account's zones or records.
struct DatabaseRoutes {
    /// The largest JSON body read; a larger one is refused unread (`BAD_REQUEST`, `limitExceeded:`).
    static let maximumBodyBytes = 8 << 20

    typealias Operation = WebServicesPath.Operation

    let store: any RecordStore
    /// The containers served; the first one's databases are the accounts' own (see `owner`).
    let containers: [String]
    /// Other names of served containers (alias → container).
    let aliases: [String: String]
    /// `http` or `https`: what the asset and webcourier URLs it hands out start with.
    let scheme: String
    let secret: ServerSecret
    let clock: WallClock
    /// Where long polls wait for changes.
    let hub: ZoneChangeHub
    /// What each account may have in progress at once.
    let shares: FairShares
    /// Where the answers in flight are counted; nil where nothing counts them.
    var metrics: ServerMetrics?
    /// The field types this process knows, for every request's saves.
    let fieldTypes = FieldTypeCache()

    /// Adds the operations to `router`.
    func add(to router: Router<ServerRequestContext>) {
        let container = router.group("database/1/:container/:environment")
            .add(middleware: DatabasePathMiddleware(containers: containers, aliases: aliases))
            .add(middleware: AuthenticationMiddleware(store: store, scheme: scheme, connections: shares.connections))
            .add(middleware: BodyLimitMiddleware(maximumBytes: Self.maximumBodyBytes))
            .add(middleware: BodyShareMiddleware(shares: shares))
            .add(middleware: AnswerShareMiddleware(shares: shares, metrics: metrics))
        let database = container.group(":database")
        database.group("records")
            .onEveryMethod("modify", use: perform(.recordsModify))
            .onEveryMethod("query", use: perform(.recordsQuery))
            .onEveryMethod("lookup", use: lookup)
            .onEveryMethod("changes", use: recordChanges)
            .onEveryMethod("resolve", use: perform(.recordsResolve))
            .onEveryMethod("accept", use: perform(.recordsAccept))
        database.group("zones")
            .onEveryMethod("list", use: perform(.zonesList))
            .onEveryMethod("lookup", use: perform(.zonesLookup))
            .onEveryMethod("modify", use: perform(.zonesModify))
            .onEveryMethod("changes", use: perform(.zonesChanges))
        database.group("changes")
            .onEveryMethod("zone", use: zonesChanges)
            .onEveryMethod("database", use: perform(.changesDatabase))
        database.group("assets")
            .onEveryMethod("upload", use: perform(.assetsUpload))
            .onEveryMethod("download", use: download)
        database.group("subscriptions")
            .onEveryMethod("list", use: perform(.subscriptionsList))
            .onEveryMethod("lookup", use: perform(.subscriptionsLookup))
            .onEveryMethod("modify", use: perform(.subscriptionsModify))
        database.group("users")
            .onEveryMethod("current", use: perform(.usersCurrent))
            .onEveryMethod("caller", use: perform(.usersCaller))
            .onEveryMethod("discover", use: perform(.usersDiscover))
            .onEveryMethod("usage", use: usage)
        database.group("users/lookup")
            .onEveryMethod("contacts", use: perform(.usersLookupContacts))
            .onEveryMethod("email", use: perform(.usersLookupEmail))
            .onEveryMethod("id", use: perform(.usersLookupID))
        database.group("tokens")
            .onEveryMethod("create", use: perform(.tokensCreate))
            .onEveryMethod("register", use: perform(.tokensRegister))
        // As Apple prints these: without a database (the private one is meant).
        container.group("subscriptions").onEveryMethod("lookup", use: perform(.subscriptionsLookup))
        container.group("tokens")
            .onEveryMethod("create", use: perform(.tokensCreate))
            .onEveryMethod("register", use: perform(.tokensRegister))
    }

    /// Answers `operation` with the JSON its body asks for (a GET has none).
    private func perform(_ operation: Operation) -> @Sendable (Request, ServerRequestContext) async throws -> Response {
        { request, context in
            let operations = try await operations(request, context)
            let body = request.method == .get ? [:] : try await request.jsonObject(context: context, for: operation)
            if operation == .usersDiscover, request.method != .get, body.isEmpty {
                throw WebServicesError.badRequest("users/discover's POST needs lookupInfos; GET it for the caller's address book.")
            }
            return .json(try await operations.perform(operation, body))
        }
    }

    /// `records/lookup`: its answer written as its records are read (`StreamedRecords`).
    private func lookup(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let operations = try await operations(request, context)
        let body = request.method == .get ? [:] : try await request.jsonObject(context: context, for: .recordsLookup)
        return try await CloudOperations.readingBody { try await operations.lookup(body) }.response()
    }

    /// `records/changes`: its page written straight from its records (`ChangesPage`).
    private func recordChanges(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let operations = try await operations(request, context)
        let body = request.method == .get ? [:] : try await request.jsonObject(context: context, for: .recordsChanges)
        return .json(bytes: try await CloudOperations.readingBody { try await operations.recordChanges(body) }.bytes)
    }

    /// `changes/zone`: each zone's page written straight from its records (`ZoneChangesAnswer`).
    private func zonesChanges(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let operations = try await operations(request, context)
        let body = request.method == .get ? [:] : try await request.jsonObject(context: context, for: .changesZone)
        return .json(bytes: try await CloudOperations.readingBody { try await operations.zonesChanges(body) }.bytes)
    }

    /// `users/usage` (ours): what the caller's account holds across all its databases, as its
    /// quota counts it, and that quota; a limit that is not set is `null`. The account is the
    /// token's, so no request can ask after another account.
    private func usage(_ request: Request, context: ServerRequestContext) async throws -> Response {
        guard let account = context.account else { throw WebServicesErrorMiddleware.noSuchEndpoint }
        let (usage, quota) = (try await store.usage(account: account), try await store.quota(account: account))
        return .json([
            "records": .integer(Int64(usage.records)), "zones": .integer(Int64(usage.zones)), "assetBytes": .integer(usage.assetBytes),
            "quota": .object([
                "maxRecords": quota.maxRecords.map { .integer(Int64($0)) } ?? .null,
                "maxZones": quota.maxZones.map { .integer(Int64($0)) } ?? .null,
                "maxAssetBytes": quota.maxAssetBytes.map { .integer($0) } ?? .null,
            ]),
        ])
    }

    /// `assets/download` (IdeaBox's earlier clients): the bytes of the asset `{fileChecksum}` names.
    private func download(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let operations = try await operations(request, context)
        let checksum = try CloudOperations.downloadChecksum(try await request.jsonObject(context: context))
        return try await AssetRoutes.download(checksum, owner: operations.owner, from: store)
    }

    /// The operations of the database the request reaches.
    private func operations(_ request: Request, _ context: ServerRequestContext) async throws -> CloudOperations {
        guard let path = context.path, let account = context.account else { throw WebServicesErrorMiddleware.noSuchEndpoint }
        let owner = owner(account, path: path)
        return CloudOperations(
            store: store, owner: owner, userRecordName: Self.userRecordName(owner),
            container: aliases[path.container] ?? path.container,
            assetURLs: AssetURLs(
                base: request.baseURL(scheme: scheme), secret: try await secret.bytes(), tokenHash: context.tokenHash, clock: clock),
            hub: hub, fieldTypes: fieldTypes, device: try DeviceHeader.device(of: request))
    }

    /// The store's name for `account`'s database in the container and environment `path`
    /// names (`DatabaseOwner.key`): production's in the first container served (and under
    /// its aliases) is the account's own name, so a store written before containers or
    /// environments were apart keeps its data there; development is a database of its own.
    private func owner(_ account: String, path: WebServicesPath.Parsed) -> String {
        let container = aliases[path.container] ?? path.container
        return DatabaseOwner.key(
            account: account, container: container, isFirstContainer: container == containers[0],
            development: path.environment == "development")
    }

    /// The user record name of a database: `_` and 32 hex digits, as Apple's look, the same
    /// for the same account and container every time, revealing neither.
    static func userRecordName(_ owner: String) -> String {
        "_" + AssetReference.checksum(of: Data("ideabox-user:\(owner)".utf8)).prefix(32)
    }
}
