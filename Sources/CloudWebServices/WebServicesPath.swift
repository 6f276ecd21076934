/// The paths of CloudKit Web Services that `ideabox serve` answers:
/// `/database/1/{container}/{environment}/{database}/{operation}`.
public enum WebServicesPath {
    /// The container a client names unless told otherwise.
    public static let defaultContainer = "iCloud.ideabox"
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
        /// The changes of several zones, each since its sync token (`zones[]`).
        case changesZone = "changes/zone"
        /// One zone's changes since a sync token (Apple's older, flat form).
        case recordsChanges = "records/changes"
        /// Creates and deletes zones.
        case zonesModify = "zones/modify"
        /// The account's zones.
        case zonesList = "zones/list"
        /// Stores the request's body as an asset; answers `{singleFile: {fileChecksum, size}}`.
        case assetsUpload = "assets/upload"
        /// Answers the bytes of the asset `{fileChecksum}` names.
        case assetsDownload = "assets/download"
    }

    /// What a request path names.
    public struct Parsed: Equatable, Sendable {
        /// The container, such as `iCloud.ideabox`.
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
        guard parts.count == 8, parts[0].isEmpty, parts[1] == "database", parts[2] == "1",
              let operation = Operation(rawValue: "\(parts[6])/\(parts[7])"),
              !parts[3].isEmpty, parts[3].utf8.count <= 255
        else { return nil }
        return Parsed(container: String(parts[3]), environment: String(parts[4]), database: String(parts[5]), operation: operation)
    }
}
