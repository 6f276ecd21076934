import IdeaBoxCore
import IdeaSync
import Testing

/// DESIGN.md's sync rules as a decision table over plain values: no database, no remote.
@Suite struct ConflictRuleTests {
    private static let me = "device-b"
    private static let other = "device-a"

    private static func save(_ milliseconds: Int64, by device: String, version: Int = 1) -> MergeCase.Side {
        MergeCase.Side(order: SyncOrder(timestamp: Timestamp(milliseconds: milliseconds), deviceId: device), version: version)
    }

    private static func delete(_ milliseconds: Int64, by device: String) -> MergeCase.Side {
        MergeCase.Side(order: SyncOrder(timestamp: Timestamp(milliseconds: milliseconds), deviceId: device), version: nil)
    }

    private static func decide(local: MergeCase.Side?, remote: MergeCase.Side, pending: Bool) -> MergeDecision {
        ConflictRule.decide(MergeCase(local: local, remote: remote, hasPendingChange: pending, thisDevice: me))
    }

    @Test func aChangeWithNothingHereIsTaken() {
        #expect(Self.decide(local: nil, remote: Self.save(1, by: Self.other), pending: false) == MergeDecision(.takeRemote))
        #expect(Self.decide(local: nil, remote: Self.delete(1, by: Self.other), pending: false) == MergeDecision(.takeRemote))
    }

    @Test func theSameStateIsAlreadyHereWhateverIsPending() {
        for pending in [false, true] {
            #expect(Self.decide(local: Self.save(5, by: Self.me), remote: Self.save(5, by: Self.me), pending: pending)
                == MergeDecision(.alreadyHave))
            #expect(Self.decide(local: Self.delete(5, by: Self.me), remote: Self.delete(5, by: Self.me), pending: pending)
                == MergeDecision(.alreadyHave))
        }
    }

    /// Last write wins by `updatedAt`, with or without a pending change; a pending change
    /// makes the meeting a conflict, logged with the side that won.
    @Test(arguments: [
        // local, remote, pending: expected
        (save(5, by: me), save(9, by: other, version: 2), false, MergeDecision(.takeRemote)),
        (save(9, by: me), save(5, by: other), false, MergeDecision(.keepLocal(resend: true))),
        (save(5, by: me), save(9, by: other), true, MergeDecision(.takeRemote, conflict: .remote)),
        (save(9, by: me), save(5, by: other), true, MergeDecision(.keepLocal(resend: false), conflict: .local)),
    ])
    func lastWriteWins(local: MergeCase.Side, remote: MergeCase.Side, pending: Bool, expected: MergeDecision) {
        #expect(Self.decide(local: local, remote: remote, pending: pending) == expected)
    }

    /// The same millisecond: the device id decides, the same way on every device.
    @Test func tiesGoToTheLargerDeviceIdOnBothDevices() {
        let mine = Self.save(7, by: Self.me)
        let theirs = Self.save(7, by: Self.other)
        #expect(Self.decide(local: mine, remote: theirs, pending: true) == MergeDecision(.keepLocal(resend: false), conflict: .tieBreaker))
        let onTheOtherDevice = ConflictRule.decide(MergeCase(local: theirs, remote: mine, hasPendingChange: true, thisDevice: Self.other))
        #expect(onTheOtherDevice == MergeDecision(.takeRemote, conflict: .tieBreaker))
    }

    /// Deletes compete in the same order: an older edit never resurrects a delete, a newer
    /// one does; a newer delete removes an edit.
    @Test func deletesCompeteInTheSameOrder() {
        #expect(Self.decide(local: Self.delete(9, by: Self.me), remote: Self.save(5, by: Self.other), pending: false)
            == MergeDecision(.keepLocal(resend: true)))
        #expect(Self.decide(local: Self.delete(5, by: Self.me), remote: Self.save(9, by: Self.other), pending: false)
            == MergeDecision(.takeRemote))
        #expect(Self.decide(local: Self.save(5, by: Self.me), remote: Self.delete(9, by: Self.other), pending: true)
            == MergeDecision(.takeRemote, conflict: .remote))
        #expect(Self.decide(local: Self.save(9, by: Self.me), remote: Self.delete(5, by: Self.other), pending: true)
            == MergeDecision(.keepLocal(resend: false), conflict: .local))
        #expect(Self.decide(local: Self.delete(9, by: Self.me), remote: Self.delete(5, by: Self.other), pending: false)
            == MergeDecision(.keepLocal(resend: true)))
    }

    /// This device's edit was sent; another device edited the same version without seeing
    /// it, later: the losing device learns of the conflict. An edit made after seeing this
    /// device's (a higher version) is no conflict.
    @Test func theLosingDeviceLearnsOfAConflictItHadAlreadySent() {
        #expect(Self.decide(local: Self.save(5, by: Self.me, version: 1), remote: Self.save(9, by: Self.other, version: 1), pending: false)
            == MergeDecision(.takeRemote, conflict: .remote, replacedThisDevicesEdit: true))
        #expect(Self.decide(local: Self.save(5, by: Self.me, version: 1), remote: Self.save(9, by: Self.other, version: 2), pending: false)
            == MergeDecision(.takeRemote))
        // Not this device's edit, or a delete on either side: nothing to learn.
        #expect(Self.decide(local: Self.save(5, by: "device-c", version: 1), remote: Self.save(9, by: Self.other, version: 1), pending: false)
            == MergeDecision(.takeRemote))
        #expect(Self.decide(local: Self.save(5, by: Self.me, version: 1), remote: Self.delete(9, by: Self.other), pending: false)
            == MergeDecision(.takeRemote))
    }
}
