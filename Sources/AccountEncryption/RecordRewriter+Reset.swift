import CloudKitModel

extension RecordRewriter {
    /// Deletes every record of `zones` that no key of the current keyring opens (sealed
    /// with a key that was reset away, or plain), for `account encryption reset`: the device
    /// then uploads its own data sealed with the new key. Returns how many were deleted.
    @discardableResult
    public func removeUnreadable(_ zones: [Zone]) async throws -> Int {
        let sealer = sealed.sealer
        let held = Set(sealer.keyring.keyIDs)
        var unreadable: [RecordID] = []
        for zone in zones {
            for record in try await listing(zone) where !(sealer.keyID(of: record).map(held.contains) ?? false) {
                unreadable.append(record.recordID)
            }
        }
        try await delete(unreadable)
        return unreadable.count
    }

    /// How many records of `zone` are sealed with a key this device holds: once a reset has
    /// removed the rest, what the remote holds under the new key, whoever on this device
    /// (the reset, or a running app's sync) sent it.
    public func readableCount(_ zone: Zone) async throws -> Int {
        let sealer = sealed.sealer
        let held = Set(sealer.keyring.keyIDs)
        return try await listing(zone).count { sealer.keyID(of: $0).map(held.contains) ?? false }
    }
}
