import CloudKitModel

extension EncryptedDatabase {
    /// The changes of `zone` after `token` as the account's encryption makes them, with change
    /// tokens bound to the state they were read in (`SealedChangeToken`): a token read while
    /// sealed is expired once the account is plain, a plain one once it is sealed, and one
    /// read under a key once the device's current key is another, so the sync fetches
    /// everything again under the new state.
    ///
    /// A record sealed under a key this device lacks sends it to the envelope first: another
    /// device may have rotated, leaving a link the keys held here can follow. If that brings
    /// a new key, the changes are fetched again under it (from the start: the token is then
    /// expired); if not, the record is refused and reported, and read again once the key is
    /// known (learning it changes the current key, so the token expires then).
    func fetchChangesFollowingKeys(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        if zone == EnvelopeRecord.zone { return try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit) }
        switch try current() {
        case .locked:
            throw AccountLocked()
        case .plain:
            if let token, SealedChangeToken.isSealed(token) { throw CloudError.changeTokenExpired }
            return try base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
        case .sealed(let sealed):
            let (changes, unknownKeys) = try sealed.fetchChangesHoldingBackUnknownKeys(in: zone, since: token, resultsLimit: resultsLimit)
            guard !unknownKeys.isEmpty else { return changes }
            let before = sealed.sealer.keyring
            try refresh()
            if case .sealed(let followed) = try current(), followed.sealer.keyring != before {
                return try fetchChangesFollowingKeys(in: zone, since: token, resultsLimit: resultsLimit)
            }
            unknownKeys.forEach(report)
            return changes
        }
    }
}
