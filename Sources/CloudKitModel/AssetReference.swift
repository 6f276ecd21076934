/// A file stored on the remote beside the records, named by its content: what a record's
/// field holds in place of data above the record size limit, as a CloudKit asset does.
///
/// An asset is uploaded on its own (`CloudDatabase.uploadAsset`) and then named by a field of
/// a saved record; the remote refuses a record that names an asset the account never
/// uploaded. The checksum is the SHA-256 of the bytes, computed by whoever holds them: the
/// server on upload, the client on download, so neither trusts the other's arithmetic
/// (`AssetReference(of:)`, beside the wire format that carries it).
public struct AssetReference: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The largest asset a remote stores.
    public static let maximumSize = 64 << 20

    /// SHA-256 of the bytes, 64 lower-case hex digits.
    public let checksum: String
    /// The number of bytes.
    public let size: Int64

    /// A reference read from a record; nil unless `checksum` is 64 lower-case hex digits and
    /// `size` within 0...`maximumSize`.
    public init?(checksum: String, size: Int64) {
        guard Self.isChecksum(checksum), (0...Int64(Self.maximumSize)).contains(size) else { return nil }
        self.checksum = checksum
        self.size = size
    }

    /// A reference computed from the bytes themselves (`AssetReference(of:)`), of any size.
    package init(computedChecksum checksum: String, size: Int64) {
        self.checksum = checksum
        self.size = size
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let checksum = try container.decode(String.self, forKey: .checksum)
        let size = try container.decode(Int64.self, forKey: .size)
        guard let reference = AssetReference(checksum: checksum, size: size) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "an asset is a SHA-256 checksum in hex and a size"))
        }
        self = reference
    }

    public var description: String { "asset \(checksum.prefix(12))… (\(size) bytes)" }

    private static func isChecksum(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension FieldValue {
    /// The assets this value names, inside lists too.
    public var assetReferences: [AssetReference] {
        switch self {
        case .asset(let reference): [reference]
        case .list(let values): values.flatMap(\.assetReferences)
        default: []
        }
    }
}
