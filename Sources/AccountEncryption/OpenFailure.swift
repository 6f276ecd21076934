import CloudKitModel

/// Why a sealed record or asset was refused: it is left out of what the device reads, and
/// reported in one line (`description`), never trusted.
public struct OpenFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was refused.
    public enum Subject: Hashable, Sendable {
        /// A record, by the id and type the remote gave it.
        case record(RecordID, recordType: String)
        /// An asset, by its reference.
        case asset(AssetReference)
    }

    /// Why it was refused.
    public enum Reason: Hashable, Sendable {
        /// It holds no sealed value: a plain record (written by a device without encryption).
        case notSealed
        /// Its sealed value is of a format `version` this release does not know.
        case unknownFormat(UInt8)
        /// It was sealed with a key this device does not hold (another device rotated, and
        /// this one has not followed the envelope yet, or the account was reset).
        case unknownKey(AccountKeyID)
        /// Its seal does not verify: a byte was altered, or the value belongs to another
        /// record, zone, type or container (swapped, moved or replayed).
        case sealBroken
        /// It opened, but what is inside is not a record (`reason` says why).
        case malformed(String)
        /// It opened, but its hidden name does not match the name inside.
        case nameMismatch
    }

    /// What was refused.
    public let subject: Subject
    /// Why.
    public let reason: Reason

    /// A failure of `subject` for `reason`.
    public init(_ subject: Subject, _ reason: Reason) {
        self.subject = subject
        self.reason = reason
    }

    /// One English line naming the record and the reason, for the sync log.
    public var description: String {
        let what = switch subject {
        case let .record(id, type): "record \(id) (\(type))"
        case let .asset(reference): "\(reference)"
        }
        let why = switch reason {
        case .notSealed: "it is not sealed"
        case let .unknownFormat(version): "its seal is of unknown format \(version)"
        case let .unknownKey(id): "it is sealed with key \(id), which this device does not hold"
        case .sealBroken: "its seal does not verify (altered, swapped or moved)"
        case let .malformed(reason): "what it seals is malformed (\(reason))"
        case .nameMismatch: "its name is not the one it seals"
        }
        return "Refused \(what): \(why)."
    }
}
