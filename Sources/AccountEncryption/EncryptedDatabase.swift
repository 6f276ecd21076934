import CloudKitModel
import Foundation
import Synchronization

/// The remote as an account's encryption makes it: plain while the account has no key
/// envelope, sealed (`SealedDatabase`) while the device's key file holds the envelope's key,
/// and closed (every request throws `AccountLocked`) while the account is encrypted and the
/// device holds no key for it, so that a locked device sends nothing and reads no record; and
/// closed too while the device holds a key but the remote has no envelope (encryption turned
/// off elsewhere, or a server that removed it), until this device's own `disable`.
///
/// A look reads the envelope (one request to the remote below) and the key file, follows a
/// rotation with the keys the device holds (rewriting the key file), and keeps the state
/// until the next look. A device sends and fetches with its last look, asking nothing more
/// of the remote, and looks again only when what it meets says the account changed:
///
/// - the remote refuses a save with `encryptionChanged` (it takes only sealed records while
///   the account has an envelope, and none once encryption was turned off: `SealingRule`):
///   the device looks again and sends those records again under the new state, once; a
///   device that is then locked sends nothing and throws `AccountLocked`, so the records stay
///   queued and are never counted sent;
/// - a fetch brings a sealed record while the device is plain, or one that does not open
///   for want of a key or of a seal while it is sealed (another device turned encryption on,
///   rotated, reset or turned it off): it looks again and fetches under the new state;
/// - the key file changed since the last look (an unlock, a rotation or a disable in another
///   process), and every time while locked, so that an unlock is noticed.
///
/// So a save is one request and a change carried by a long poll none. The envelope's zone
/// passes through in every state.
public final class EncryptedDatabase: CloudDatabase {
    /// The remote below, for plain records and the envelope.
    public let base: any CloudDatabase
    /// The remote below for sealed saves: one that replaces a record whole (a merge would keep
    /// the plain fields of a record sealed for the first time beside its sealed value).
    public let sealedBase: any CloudDatabase
    private let keyFile: AccountKeyFile
    private let containerID: String
    private let hiddenNameZones: Set<RecordZoneID>
    private let plainNames: @Sendable (RecordZoneID) -> [String]
    /// Where refused records go.
    let report: @Sendable (OpenFailure) -> Void
    private let onState: @Sendable (EncryptionState) -> Void
    private let random: RandomBytes
    private let mode = Mutex<Mode?>(nil)
    /// The key file's version as of the last look.
    private let lookedKeyFile = Mutex<AccountKeyFile.Version?>(nil)

    /// What the last look found.
    enum Mode: Sendable {
        case plain
        case locked
        case sealed(SealedDatabase)

        var state: EncryptionState {
            switch self {
            case .plain: .off
            case .locked: .locked
            case .sealed: .on
            }
        }
    }

    /// The remote `base` (and `sealedBase` for sealed saves, `base` by default) as the
    /// account's encryption and the key file `keyFile` make it. Seals are bound to
    /// `containerID` (the same on every device); `hiddenNameZones` hide their record names,
    /// and `plainNames` gives the plain names this device already knows in such a zone.
    /// Refused records go to `report`; each look's state to `onState`.
    public init(
        base: any CloudDatabase, sealedBase: (any CloudDatabase)? = nil, keyFile: AccountKeyFile, containerID: String,
        hiddenNameZones: Set<RecordZoneID> = [], plainNames: @escaping @Sendable (RecordZoneID) -> [String] = { _ in [] },
        random: RandomBytes = .system, report: @escaping @Sendable (OpenFailure) -> Void = { _ in },
        onState: @escaping @Sendable (EncryptionState) -> Void = { _ in }
    ) {
        self.base = base
        self.sealedBase = sealedBase ?? base
        self.keyFile = keyFile
        self.containerID = containerID
        self.hiddenNameZones = hiddenNameZones
        self.plainNames = plainNames
        self.random = random
        self.report = report
        self.onState = onState
    }

    /// The state as of the last look, looking now if none was taken.
    public func state() async throws -> EncryptionState {
        try await current().state
    }

    /// Looks at the envelope and the key file again.
    @discardableResult
    public func refresh() async throws -> EncryptionState {
        let found: Mode
        if let stored = try await EnvelopeStore(database: base).fetch() {
            found = try mode(for: stored.envelope)
        } else if (try? keyFile.load()) != nil {
            // A device that holds the account's key and finds no envelope stays closed: a
            // server that removed the envelope must not be sent plain records. Only this
            // device's own `account encryption disable` lets go of the key.
            found = .locked
        } else {
            found = .plain
        }
        mode.withLock { $0 = found }
        // Read after the look, which rewrites the key file when it follows a rotation.
        lookedKeyFile.withLock { $0 = keyFile.version() }
        onState(found.state)
        return found.state
    }

    /// The sealed view of the remote, if the device holds the account's key now.
    public func sealedDatabase() async throws -> SealedDatabase? {
        if case .sealed(let sealed) = try await current() { return sealed }
        return nil
    }

    public var maximumRecordsPerRequest: Int { base.maximumRecordsPerRequest }

    /// The account's status below; throws `AccountLocked` while the device is locked. Looks
    /// again only while locked, before the first look, or when the key file changed since:
    /// otherwise the last look holds until the remote or a fetch says it is out of date.
    public func accountStatus() async throws -> AccountStatus {
        let status = try await base.accountStatus()
        guard case .available = status else { return status }
        let held = mode.withLock { $0 }
        let state = if let held, held.state != .locked, lookedKeyFile.withLock({ $0 }) == keyFile.version() {
            held.state
        } else {
            try await refresh()
        }
        if state == .locked { throw AccountLocked(keyHeldHere: keyFile.exists) }
        return status
    }

    public func createZone(_ zone: RecordZoneID) async throws {
        try await database(for: zone).createZone(zone)
    }

    public func deleteZone(_ zone: RecordZoneID) async throws {
        try await database(for: zone).deleteZone(zone)
    }

    /// Saves and deletes as the last look says (sealed or plain). Records the remote refuses
    /// with `encryptionChanged` were written under an out-of-date look: the device looks
    /// again and sends them once more as the new state makes them; locked, it sends nothing
    /// and throws `AccountLocked`.
    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        guard let zone = records.first?.recordID.zoneID ?? recordIDs.first?.zoneID else { return ModifyResult() }
        var result = try await database(for: zone).modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
        let refused = Set(result.failures.filter { $0.value == .encryptionChanged }.keys)
        guard zone != EnvelopeRecord.zone, !refused.isEmpty else { return result }
        if try await refresh() == .locked { throw AccountLocked(keyHeldHere: keyFile.exists) }
        let again = try await database(for: zone).modify(
            saving: records.filter { refused.contains($0.recordID) }, deleting: [], savePolicy: savePolicy)
        result.failures = result.failures.filter { !refused.contains($0.key) }.merging(again.failures) { _, again in again }
        result.saved += again.saved
        return result
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await fetchChangesFollowingKeys(in: zone, since: token, resultsLimit: resultsLimit)
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await database(for: zone).records(in: zone, ofType: recordType)
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference {
        try await database(for: nil).uploadAsset(data)
    }

    public func fetchAsset(_ reference: AssetReference) async throws -> Data {
        try await database(for: nil).fetchAsset(reference)
    }

    // MARK: Inside

    /// The state as of the last look, looking now if none was taken.
    func current() async throws -> Mode {
        if let known = mode.withLock({ $0 }) { return known }
        try await refresh()
        return mode.withLock { $0 } ?? .locked
    }

    private func database(for zone: RecordZoneID?) async throws -> any CloudDatabase {
        if zone == EnvelopeRecord.zone { return base }
        switch try await current() {
        case .plain: return base
        case .locked: throw AccountLocked()
        case .sealed(let sealed): return sealed
        }
    }

    private func mode(for envelope: KeyEnvelope) throws -> Mode {
        guard let held = try? keyFile.load() else { return .locked }
        let keyring: AccountKeyring
        if held.current.id == envelope.keyID {
            keyring = held
        } else {
            guard let followed = try? envelope.follow(from: held) else { return .locked }
            try keyFile.save(followed)
            keyring = followed
        }
        if case .sealed(let known)? = mode.withLock({ $0 }), known.sealer.keyring == keyring { return .sealed(known) }
        let sealed = SealedDatabase(
            base: sealedBase,
            sealer: RecordSealer(keyring: keyring, containerID: containerID, hiddenNameZones: hiddenNameZones, random: random),
            report: report)
        for zone in hiddenNameZones { sealed.rememberPlainNames(plainNames(zone), in: zone) }
        return .sealed(sealed)
    }
}
