import CloudKitModel

/// Reads and writes the account's key envelope on a remote (`EnvelopeRecord`), so that two
/// devices turning encryption on at once cannot both win: the first save creates the record,
/// the second is refused by the remote (a create-only save) and learns the winner's envelope.
///
/// Hand it the remote itself (a `SealedDatabase` would pass the envelope through too).
/// Throws `CloudError` for the remote's failures and `AccountEncryptionError` for an envelope
/// it cannot read.
public struct EnvelopeStore: Sendable {
    /// The envelope as the remote has it, with the change tag to update it over.
    public struct Stored: Hashable, Sendable {
        /// The envelope.
        public let envelope: KeyEnvelope
        /// The server's change tag of its record.
        public let changeTag: String?
    }

    /// What `publish` did.
    public enum Publication: Sendable {
        /// This envelope is now the account's: encryption is on with this device's key.
        case published(Stored)
        /// Another device turned encryption on first: its envelope is the account's, and
        /// this device must unlock that one (its own key is to be forgotten, nothing having
        /// been sealed with it).
        case alreadyEnabled(Stored)
    }

    /// What `replace` did.
    public enum Replacement: Sendable {
        /// The remote now holds the new envelope.
        case replaced(Stored)
        /// The envelope changed on the remote since it was read (another device rewrapped or
        /// rotated): here it is; unlock or follow it and try again.
        case changedMeanwhile(Stored)
        /// The remote holds no envelope any more (encryption was turned off).
        case gone
    }

    private let database: any CloudDatabase

    /// A store reading and writing through `database`.
    public init(database: any CloudDatabase) {
        self.database = database
    }

    /// The account's envelope, or nil if it has none (encryption is off).
    public func fetch() async throws -> Stored? {
        let records: [RemoteRecord]
        do {
            records = try await database.records(in: EnvelopeRecord.zone, ofType: EnvelopeRecord.recordType)
        } catch CloudError.zoneNotFound {
            return nil
        }
        guard let record = records.first(where: { $0.recordID == EnvelopeRecord.recordID }) else { return nil }
        return Stored(envelope: try EnvelopeRecord.envelope(from: record), changeTag: record.changeTag)
    }

    /// Makes `envelope` the account's unless it already has one: a create-only save
    /// (`ifServerRecordUnchanged` without a change tag), which the remote refuses when the
    /// record exists.
    public func publish(_ envelope: KeyEnvelope) async throws -> Publication {
        try await database.createZone(EnvelopeRecord.zone)
        let result = try await database.modify(
            saving: [EnvelopeRecord.record(for: envelope)], deleting: [], savePolicy: .ifServerRecordUnchanged)
        if let saved = result.saved.first(where: { $0.recordID == EnvelopeRecord.recordID }) {
            return .published(Stored(envelope: envelope, changeTag: saved.changeTag))
        }
        switch result.failures[EnvelopeRecord.recordID] {
        case .serverRecordChanged(let server?)?:
            return .alreadyEnabled(Stored(envelope: try EnvelopeRecord.envelope(from: server), changeTag: server.changeTag))
        case .serverRecordChanged(nil)?:
            guard let stored = try await fetch() else { throw CloudError.serverRecordChanged(serverRecord: nil) }
            return .alreadyEnabled(stored)
        case let failure?:
            throw failure
        case nil:
            throw CloudError.internalError
        }
    }

    /// Puts `envelope` (rewrapped or rotated from `stored`) in place of `stored`, only if
    /// the remote still has that version.
    public func replace(_ stored: Stored, with envelope: KeyEnvelope) async throws -> Replacement {
        let result = try await database.modify(
            saving: [EnvelopeRecord.record(for: envelope, changeTag: stored.changeTag)], deleting: [],
            savePolicy: .ifServerRecordUnchanged)
        if let saved = result.saved.first(where: { $0.recordID == EnvelopeRecord.recordID }) {
            return .replaced(Stored(envelope: envelope, changeTag: saved.changeTag))
        }
        switch result.failures[EnvelopeRecord.recordID] {
        case .serverRecordChanged(let server?)?:
            return .changedMeanwhile(Stored(envelope: try EnvelopeRecord.envelope(from: server), changeTag: server.changeTag))
        case .serverRecordChanged(nil)?:
            guard let current = try await fetch() else { return .gone }
            return .changedMeanwhile(current)
        case .unknownItem?:
            return .gone
        case let failure?:
            throw failure
        case nil:
            throw CloudError.internalError
        }
    }

    /// Removes the envelope (encryption off, once every record is plain again).
    public func remove() async throws {
        do {
            let result = try await database.modify(saving: [], deleting: [EnvelopeRecord.recordID], savePolicy: .allKeys)
            if let failure = result.failures[EnvelopeRecord.recordID], failure != .unknownItem { throw failure }
        } catch CloudError.zoneNotFound {
            return
        }
    }
}
