import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// The sync rules `ConflictRule` decides (docs/ARCHITECTURE.md, "Where each decision lives")
/// as a decision table over plain values: no database, no remote.
@Suite struct ConflictRuleTests {
    private static let me = "device-b"
    private static let other = "device-a"
    private static let id = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

    private static func order(_ milliseconds: Int64, _ device: String) -> SyncOrder {
        SyncOrder(timestamp: Timestamp(milliseconds: milliseconds), deviceId: device)
    }

    /// An idea whose every field was written at `milliseconds` by `device`, its title naming both.
    private static func save(_ milliseconds: Int64, by device: String, version: Int = 1) -> MergeCase.Side {
        let idea = Idea(
            id: id, title: "v\(milliseconds) \(device)", createdAt: Timestamp(milliseconds: 1),
            updatedAt: Timestamp(milliseconds: milliseconds), deviceId: device, version: version)
        return .idea(idea, FieldStamps(all: order(milliseconds, device)))
    }

    private static func delete(_ milliseconds: Int64, by device: String) -> MergeCase.Side {
        .deleted(order(milliseconds, device))
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

    /// Last write wins by the field stamps, with or without a pending change; a pending
    /// change makes the meeting a conflict, logged with the side that won and the fields.
    @Test(arguments: [
        // local, remote, pending: expected
        (save(5, by: me), save(9, by: other, version: 2), false, MergeDecision(.takeRemote)),
        (save(9, by: me), save(5, by: other), false, MergeDecision(.keepLocal(resend: true))),
        (save(5, by: me), save(9, by: other), true, MergeDecision(.takeRemote, conflict: .remote, conflictFields: [.title: .remote], lostHere: [.title])),
        (save(9, by: me), save(5, by: other), true,
         MergeDecision(.keepLocal(resend: false), conflict: .local, conflictFields: [.title: .local], lostThere: [.title])),
    ])
    func lastWriteWins(local: MergeCase.Side, remote: MergeCase.Side, pending: Bool, expected: MergeDecision) {
        #expect(Self.decide(local: local, remote: remote, pending: pending) == expected)
    }

    /// The same millisecond: the device id decides, the same way on every device.
    @Test func tiesGoToTheLargerDeviceIdOnBothDevices() {
        let mine = Self.save(7, by: Self.me)
        let theirs = Self.save(7, by: Self.other)
        #expect(Self.decide(local: mine, remote: theirs, pending: true)
            == MergeDecision(
                .keepLocal(resend: false), conflict: .tieBreaker, conflictFields: [.title: .tieBreaker], lostThere: [.title]))
        let onTheOtherDevice = ConflictRule.decide(MergeCase(local: theirs, remote: mine, hasPendingChange: true, thisDevice: Self.other))
        #expect(onTheOtherDevice
            == MergeDecision(.takeRemote, conflict: .tieBreaker, conflictFields: [.title: .tieBreaker], lostHere: [.title]))
    }

    /// Deletes compete in the same order against the latest field stamp: an older edit never
    /// resurrects a delete, a newer one does; a newer delete removes an edit.
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
            == MergeDecision(
                .takeRemote, conflict: .remote, conflictFields: [.title: .remote], lostHere: [.title], replacedThisDevicesEdit: true))
        #expect(Self.decide(local: Self.save(5, by: Self.me, version: 1), remote: Self.save(9, by: Self.other, version: 2), pending: false)
            == MergeDecision(.takeRemote))
        // Not this device's edit, or a delete on either side: nothing to learn.
        #expect(Self.decide(local: Self.save(5, by: "device-c", version: 1), remote: Self.save(9, by: Self.other, version: 1), pending: false)
            == MergeDecision(.takeRemote))
        #expect(Self.decide(local: Self.save(5, by: Self.me, version: 1), remote: Self.delete(9, by: Self.other), pending: false)
            == MergeDecision(.takeRemote))
    }

    /// A done-mark made offline and a later rename on another device both survive: each
    /// field comes from the side that wrote it later, on both devices alike.
    @Test func editsOfDifferentFieldsMadeApartBothSurvive() throws {
        let base = Idea(
            id: Self.id, title: "Plan", createdAt: Timestamp(milliseconds: 1), deviceId: Self.other,
            lastSyncedAt: Timestamp(milliseconds: 2))
        let baseStamps = FieldStamps(all: Self.order(1, Self.other))
        var done = base
        done.isCompleted = true
        let doneStamps = baseStamps.setting([.isCompleted], to: Self.order(5, Self.me))
        var renamed = base
        renamed.title = "Plan the trip"
        let renamedStamps = baseStamps.setting([.title], to: Self.order(9, Self.other))

        let here = Self.decide(local: .idea(done, doneStamps), remote: .idea(renamed, renamedStamps), pending: true)
        guard case let .merged(merged, stamps) = here.action else {
            Issue.record("expected a merge, got \(here.action)")
            return
        }
        #expect(merged.title == "Plan the trip" && merged.isCompleted)
        #expect(stamps.title == Self.order(9, Self.other) && stamps.isCompleted == Self.order(5, Self.me))
        #expect(merged.updatedAt == Timestamp(milliseconds: 9) && merged.deviceId == Self.other)
        // Different fields: nothing lost, so no conflict.
        #expect(here.conflict == nil)

        // The merge arrives at the renaming device: it takes it whole.
        let there = ConflictRule.decide(MergeCase(
            local: .idea(renamed, renamedStamps), remote: .idea(merged, stamps), hasPendingChange: false,
            thisDevice: Self.other))
        #expect(there == MergeDecision(.takeRemote))
    }

    /// Three fields met: both devices wrote the title, this device alone the done flag and
    /// the other alone the description. Only the title lost, on one side, and only it is
    /// named as lost; what one side alone wrote is merged without a word.
    @Test(arguments: [(Int64(9), true), (Int64(4), false)])
    func aThreeFieldMergeNamesOnlyTheFieldThatLost(theirTitleAt: Int64, theirsWins: Bool) throws {
        let base = Idea(
            id: Self.id, title: "Plan", description: "old", createdAt: Timestamp(milliseconds: 1), deviceId: Self.other,
            lastSyncedAt: Timestamp(milliseconds: 2))
        let baseStamps = FieldStamps(all: Self.order(1, Self.other))
        var mine = base
        mine.title = "Plan (mine)"
        mine.isCompleted = true
        let myStamps = baseStamps.setting([.title, .isCompleted], to: Self.order(5, Self.me))
        var theirs = base
        theirs.title = "Plan (theirs)"
        theirs.description = "new"
        let theirStamps = baseStamps.setting([.title, .description], to: Self.order(theirTitleAt, Self.other))

        let here = Self.decide(local: .idea(mine, myStamps), remote: .idea(theirs, theirStamps), pending: true)
        #expect(here.conflictFields.keys.sorted { $0.rawValue < $1.rawValue } == [.title])
        #expect(here.lostHere == (theirsWins ? [.title] : []))
        #expect(here.lostThere == (theirsWins ? [] : [.title]))
        guard case let .merged(merged, _) = here.action else {
            Issue.record("expected a merge, got \(here.action)")
            return
        }
        #expect(merged.isCompleted && merged.description == "new")
        #expect(merged.title == (theirsWins ? "Plan (theirs)" : "Plan (mine)"))
    }

    /// An untouched sample yields to whatever the account holds, with no conflict; a
    /// person's edit of a sample is an ordinary idea, and wins over an untouched one.
    @Test func untouchedSamplesNeverWin() {
        let english = SampleIdeas.ideas(in: .english, stampedAt: Timestamp(milliseconds: 1_000))[0]
        let chinese = SampleIdeas.ideas(in: .traditionalChinese, stampedAt: Timestamp(milliseconds: 9_000))[0]
        let englishSample = MergeCase.Side.idea(english, FieldStamps(legacy: english))
        let chineseSample = MergeCase.Side.idea(chinese, FieldStamps(legacy: chinese))
        #expect(Self.decide(local: chineseSample, remote: englishSample, pending: true) == MergeDecision(.takeRemote))
        #expect(Self.decide(local: Self.delete(2_000, by: Self.me), remote: chineseSample, pending: false)
            == MergeDecision(.keepLocal(resend: true)))
        #expect(Self.decide(local: Self.delete(2_000, by: Self.me), remote: chineseSample, pending: true)
            == MergeDecision(.keepLocal(resend: false)), "a delete not yet sent meets a sample: no conflict")
        #expect(Self.decide(local: chineseSample, remote: Self.delete(500, by: Self.other), pending: true)
            == MergeDecision(.takeRemote))
        var edited = english
        edited.title = "My own plan"
        let editedStamps = FieldStamps(legacy: english).setting([.title], to: Self.order(1_500, Self.other))
        #expect(Self.decide(local: chineseSample, remote: .idea(edited, editedStamps), pending: true) == MergeDecision(.takeRemote))
        #expect(Self.decide(local: .idea(edited, editedStamps), remote: chineseSample, pending: false)
            == MergeDecision(.keepLocal(resend: true)))
    }

    /// What only a broken or hostile record brings is still settled alike everywhere: a
    /// delete and an edit at one place go to the delete; equal stamps with different values
    /// to the larger value.
    @Test func tiesABrokenRecordBringsAreSettledAlikeEverywhere() {
        #expect(Self.decide(local: Self.save(5, by: Self.other), remote: Self.delete(5, by: Self.other), pending: false)
            == MergeDecision(.takeRemote))
        #expect(Self.decide(local: Self.delete(5, by: Self.other), remote: Self.save(5, by: Self.other), pending: false)
            == MergeDecision(.keepLocal(resend: true)))
        guard case .idea(let idea, let stamps) = Self.save(5, by: Self.other) else { return }
        var forged = idea
        forged.title = "zzz forged"
        let onOne = Self.decide(local: .idea(idea, stamps), remote: .idea(forged, stamps), pending: false)
        let onOther = Self.decide(local: .idea(forged, stamps), remote: .idea(idea, stamps), pending: false)
        #expect(onOne == MergeDecision(.takeRemote) && onOther == MergeDecision(.keepLocal(resend: true)))
    }
}

