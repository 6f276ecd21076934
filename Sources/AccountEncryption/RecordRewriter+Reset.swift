import CloudKitModel

extension RecordRewriter {
    /// Deletes every record of `zones` that no key of the current keyring opens (sealed
    /// with a key that was reset away, or plain), for `account encryption reset`: the device
    /// then uploads its own data sealed with the new key. Returns how many were deleted.
    @discardableResult
    public func removeUnreadable(_ zones: [Zone]) throws -> Int {
        let sealer = sealed.sealer
        let held = Set(sealer.keyring.keyIDs)
        var unreadable: [RecordID] = []
        for zone in zones {
            for record in try listing(zone) where !(sealer.keyID(of: record).map(held.contains) ?? false) {
                unreadable.append(record.recordID)
            }
        }
        try delete(unreadable)
        return unreadable.count
    }
}
