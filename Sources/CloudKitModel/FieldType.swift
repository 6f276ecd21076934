/// A field's type as CloudKit names it, spelled as the web services write it in a field's
/// `type` and as a record type's schema keeps it: the one table of these names, which the
/// wire format (`WebServicesFormat`) and the server's schema rule (`FieldSchema`) both read.
/// A list is the `*_LIST` of its items' type (`listName`).
public enum FieldType: String, CaseIterable, Sendable {
    /// Text.
    case string = "STRING"
    /// A whole number.
    case int64 = "INT64"
    /// A floating-point number.
    case double = "DOUBLE"
    /// Milliseconds since 1970.
    case timestamp = "TIMESTAMP"
    /// Base64 bytes.
    case bytes = "BYTES"
    /// An asset as a record holds it, and as an answer that carries its download URL names it.
    case asset = "ASSET"
    /// An asset as a save sends it (and an answer without a download URL names it): the
    /// receipt of an upload.
    case assetID = "ASSETID"
    /// A reference to another record.
    case reference = "REFERENCE"
    /// A place on Earth.
    case location = "LOCATION"
    /// Not a CloudKit type: what IdeaBox's earlier clients sent for a flag, read as an `INT64`.
    case boolean = "BOOLEAN"

    /// The ending of a list type's name: a `STRING_LIST` is a list of `STRING`s.
    public static let listSuffix = "_LIST"

    /// The name of a list of this type's values.
    public var listName: String { rawValue + Self.listSuffix }

    /// The type named `name` names lists of (`STRING` for `STRING_LIST`), spelled as sent;
    /// nil if `name` is not a list type's.
    public static func itemName(ofList name: String) -> String? {
        name.hasSuffix(listSuffix) ? String(name.dropLast(listSuffix.count)) : nil
    }

    /// Whether `name` is a list type's.
    public static func isList(_ name: String) -> Bool {
        name.hasSuffix(listSuffix)
    }

    /// The type a record holds a value sent as this type as: an `ASSETID` is an `ASSET`, a
    /// `BOOLEAN` an `INT64`, any other type itself.
    public var held: FieldType {
        switch self {
        case .assetID: .asset
        case .boolean: .int64
        default: self
        }
    }

    /// The type of a scalar `value` as a record holds it (an asset is an `ASSET`); nil for a
    /// list, whose type is its items'.
    public init?(of value: FieldValue) {
        switch value {
        case .string: self = .string
        case .int64: self = .int64
        case .double: self = .double
        case .timestamp: self = .timestamp
        case .bytes: self = .bytes
        case .asset: self = .asset
        case .reference: self = .reference
        case .location: self = .location
        case .list: return nil
        }
    }
}
