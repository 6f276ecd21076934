import CloudKitModel

extension EncryptedDatabase {
    /// The changes of `zone` after `token` as the account's encryption makes them, with change
    /// tokens bound to the state they were read in (`SealedChangeToken`): a token read while
    /// sealed is expired once the account is plain, a plain one once it is sealed, and one
    /// read under a key once the device's current key is another, so the sync fetches
    /// everything again under the new state.
    ///
    /// A record sealed under a key this device lacks, or a plain one, sends it to the
    /// envelope first: another device may have rotated, leaving a link the keys held here can
    /// follow, or turned encryption off. If that brings a new key or a new state, the changes
    /// are fetched again under it (from the start: the token is then expired); if not, the
    /// record is refused and reported, and read again once the key is known (learning it
    /// changes the current key, so the token expires then). Likewise a sealed record fetched
    /// while plain: another device turned encryption on, and the device looks again.
    func fetchChangesFollowingKeys(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        if zone == EnvelopeRecord.zone { return try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit) }
        switch try await current() {
        case .locked:
            throw AccountLocked()
        case .plain:
            if let token, SealedChangeToken.isSealed(token) { throw CloudError.changeTokenExpired }
            let changes = try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
            guard changes.changed.contains(where: SealingRule.isSealed), try await refresh() != .off else { return changes }
            return try await fetchChangesFollowingKeys(in: zone, since: token, resultsLimit: resultsLimit)
        case .sealed(let sealed):
            let (changes, heldBack) = try await sealed.fetchChangesHoldingBack(in: zone, since: token, resultsLimit: resultsLimit)
            guard !heldBack.isEmpty else { return changes }
            let before = sealed.sealer.keyring
            try await refresh()
            if case .sealed(let followed) = try await current(), followed.sealer.keyring == before {
                heldBack.forEach(report)
                return changes
            }
            return try await fetchChangesFollowingKeys(in: zone, since: token, resultsLimit: resultsLimit)
        }
    }
}
