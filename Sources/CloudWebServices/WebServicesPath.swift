/// The paths of CloudKit Web Services that `ideabox serve` answers:
/// `/database/1/{container}/{environment}/{database}/{operation}`.
public enum WebServicesPath {
    /// Whether `name` is a container id: `iCloud.` and then letters, digits, '.', '-' or
    /// '_', at most 255 bytes in all.
    public static func isValidContainer(_ name: String) -> Bool {
        name.hasPrefix("iCloud.") && name.utf8.count > 7 && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)) }
    }

    /// Whether `token` looks like a container API token (`ckAPIToken`): 64 hex digits.
    public static func isValidAPIToken(_ token: some StringProtocol) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }

    /// The environments a path may name.
    public static let environments: Set<String> = ["production", "development"]

    /// The operations served, by the end of their path.
    public enum Operation: String, CaseIterable, Sendable {
        /// Saves and deletes records.
        case recordsModify = "records/modify"
        /// Records of one type in a zone.
        case recordsQuery = "records/query"
        /// Records by name.
        case recordsLookup = "records/lookup"
        /// Share URLs resolved to their shares (refused: sharing is not offered).
        case recordsResolve = "records/resolve"
        /// Shares accepted (refused: sharing is not offered).
        case recordsAccept = "records/accept"
        /// The changes of several zones, each since its sync token (`zones[]`).
        case changesZone = "changes/zone"
        /// One zone's changes since a sync token (Apple's older, flat form).
        case recordsChanges = "records/changes"
        /// The zones changed since a database sync token.
        case changesDatabase = "changes/database"
        /// The zones changed since a `metaSyncToken` (Apple's older form).
        case zonesChanges = "zones/changes"
        /// Creates and deletes zones.
        case zonesModify = "zones/modify"
        /// The account's zones.
        case zonesList = "zones/list"
        /// Zones by name.
        case zonesLookup = "zones/lookup"
        /// Upload URLs for assets (`tokens[]`); the bytes are then POSTed to each URL.
        case assetsUpload = "assets/upload"
        /// Answers the bytes of the asset `{fileChecksum}` names (IdeaBox's earlier clients).
        case assetsDownload = "assets/download"
        /// The signed-in user's record name (in the `public` database, as Apple has it).
        case usersCurrent = "users/current"
        /// The user identities a request's lookups name (POST), or the caller's address book
        /// (GET); in the `public` database, as Apple has it.
        case usersDiscover = "users/discover"
        /// The caller's own user identity (GET; `users/current`'s successor).
        case usersCaller = "users/caller"
        /// The discoverable users of the caller's address book (Apple's older form).
        case usersLookupContacts = "users/lookup/contacts"
        /// Discoverable users by email address (Apple's older form).
        case usersLookupEmail = "users/lookup/email"
        /// Discoverable users by user record name (Apple's older form).
        case usersLookupID = "users/lookup/id"
        /// Creates, updates and deletes zone subscriptions.
        case subscriptionsModify = "subscriptions/modify"
        /// The account's subscriptions.
        case subscriptionsList = "subscriptions/list"
        /// Subscriptions by id (Apple prints its path without a database).
        case subscriptionsLookup = "subscriptions/lookup"
        /// A webcourier URL to long-poll for notifications (a path without a database).
        case tokensCreate = "tokens/create"
        /// Registers an APNs token for notifications (a path without a database).
        case tokensRegister = "tokens/register"
        /// **Ours**: what the caller's account holds across all its databases, and its quota
        /// (`ideabox remote status` of a profile signed in to a server).
        case usersUsage = "users/usage"

        /// Whether the operation is read with GET (Apple's) as well as POST (ours for these).
        public var takesGet: Bool {
            self == .zonesList || self == .usersCurrent || self == .usersDiscover || self == .usersCaller || self == .subscriptionsList
                || self == .usersUsage
        }

        /// Whether a POST of the operation must carry a JSON object: Apple's reference gives its
        /// request keys (some of them may be left out, but not the body). The operations Apple
        /// reads with GET take an empty POST as their GET; `users/discover`'s POST is another
        /// operation than its GET, and needs its lookups.
        public var needsBody: Bool {
            (!takesGet || self == .usersDiscover) && self != .assetsDownload && self != .usersLookupContacts
        }

        /// Whether Apple has the operation in the `public` database (it is served in `private` too).
        public var isPublic: Bool {
            switch self {
            case .usersCurrent, .usersDiscover, .usersCaller, .usersLookupContacts, .usersLookupEmail, .usersLookupID, .recordsResolve:
                true
            default: false
            }
        }

        /// Whether Apple's path for the operation has no database segment.
        public var mayOmitDatabase: Bool { self == .tokensCreate || self == .tokensRegister || self == .subscriptionsLookup }
    }

    /// What a request path names.
    public struct Parsed: Equatable, Sendable {
        /// The container, such as `iCloud.com.buildwithharry.IdeaBox`.
        public var container: String
        /// `production` or `development` (not checked here).
        public var environment: String
        /// `private`, `public` or `shared` (not checked here).
        public var database: String
        /// The operation.
        public var operation: Operation
    }

    /// The parts of `path`, or nil if it is not the path of a served operation.
    public static func parse(_ path: String) -> Parsed? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 7, parts.count <= 9, parts[0].isEmpty, parts[1] == "database", parts[2] == "1",
              !parts[3].isEmpty, parts[3].utf8.count <= 255
        else { return nil }
        // `tokens/create`, `tokens/register` and `subscriptions/lookup` as Apple prints them: no
        // database; the private one is meant.
        if let operation = Operation(rawValue: parts[5...].joined(separator: "/")), operation.mayOmitDatabase {
            return Parsed(container: String(parts[3]), environment: String(parts[4]), database: "private", operation: operation)
        }
        guard parts.count >= 8, let operation = Operation(rawValue: parts[6...].joined(separator: "/")) else { return nil }
        return Parsed(container: String(parts[3]), environment: String(parts[4]), database: String(parts[5]), operation: operation)
    }
}
