import CloudKitModel
import CloudWebServices

/// What a server says one account holds across all its databases, as its quota counts it
/// (deleted records it still remembers count), and what the account may hold: `users/usage`,
/// ours beyond Apple's reference. A limit is nil where none is set.
public struct ServedAccountUsage: Hashable, Codable, Sendable {
    public var records: Int
    public var zones: Int
    public var assetBytes: Int64
    public var maxRecords: Int?
    public var maxZones: Int?
    public var maxAssetBytes: Int64?

    /// A usage.
    public init(records: Int, zones: Int, assetBytes: Int64, maxRecords: Int?, maxZones: Int?, maxAssetBytes: Int64?) {
        self.records = records
        self.zones = zones
        self.assetBytes = assetBytes
        self.maxRecords = maxRecords
        self.maxZones = maxZones
        self.maxAssetBytes = maxAssetBytes
    }

    enum CodingKeys: String, CodingKey { case records, zones, assetBytes, maxRecords, maxZones, maxAssetBytes }

    /// Every key is written, a limit not set as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(records, forKey: .records)
        try container.encode(zones, forKey: .zones)
        try container.encode(assetBytes, forKey: .assetBytes)
        try container.encode(maxRecords, forKey: .maxRecords)
        try container.encode(maxZones, forKey: .maxZones)
        try container.encode(maxAssetBytes, forKey: .maxAssetBytes)
    }

    /// The usage a `users/usage` answer holds; an answer without its counts is no answer
    /// (`networkFailure`, as any answer that is not what was asked for).
    init(answer: WebServicesFormat.Object) throws {
        guard let records = answer["records"]?.wholeNumber, let zones = answer["zones"]?.wholeNumber,
              let assetBytes = answer["assetBytes"]?.wholeNumber, let quota = answer["quota"]?.object,
              records >= 0, zones >= 0, assetBytes >= 0
        else { throw CloudError.networkFailure }
        /// A limit: a whole number, or null for none.
        func limit(_ name: String) throws -> Int64? {
            switch quota[name] {
            case .null, nil: return nil
            case let value?:
                guard let number = value.wholeNumber, number >= 0 else { throw CloudError.networkFailure }
                return number
            }
        }
        self.init(
            records: Int(records), zones: Int(zones), assetBytes: assetBytes,
            maxRecords: try limit("maxRecords").map { Int($0) }, maxZones: try limit("maxZones").map { Int($0) },
            maxAssetBytes: try limit("maxAssetBytes"))
    }
}
