import IdeaBoxFoundation

/// Last write wins, field by field, decided here and applied by the store inside its
/// transaction: for a record from the remote (`IdeaSync`) and for an idea from an import
/// file alike, so a device settles both the same way.
///
/// Title, description and the done flag each carry a stamp in the one sync order (a hybrid
/// clock's time in milliseconds, then the device id), the same on every device. Where both
/// sides hold the idea, each field comes from whichever side stamped it later, so edits of
/// different fields made apart both survive. A delete competes as a whole against the
/// latest field stamp, so an edit older than a delete never brings the idea back, and a
/// delete older than an edit never removes it.
///
/// An untouched sample (no field written by a person) yields to whatever the account holds
/// and never counts as a conflict: a device joining an account adopts its samples.
///
/// Where this device had a change pending and both sides wrote a field to different values,
/// the meeting is a conflict and is logged with those fields; so is the case where this
/// device's sent edit of a field was replaced by another device's edit made without seeing it.
public enum ConflictRule {
    /// What to do when `merge.remote` arrives at a device holding `merge.local`.
    public static func decide(_ merge: MergeCase) -> MergeDecision {
        guard let local = merge.local else { return MergeDecision(.takeRemote) }
        switch (local, merge.remote) {
        case let (.idea(mine, myStamps), .idea(theirs, theirStamps)):
            return decide(
                mine: mine, myStamps: myStamps, theirs: theirs, theirStamps: theirStamps,
                hasPendingChange: merge.hasPendingChange, thisDevice: merge.thisDevice)
        default:
            return decideWhole(local: local, remote: merge.remote, hasPendingChange: merge.hasPendingChange)
        }
    }

    /// A delete on one side or both: the later state wins whole.
    private static func decideWhole(
        local: MergeCase.Side, remote: MergeCase.Side, hasPendingChange: Bool
    ) -> MergeDecision {
        if remote.order == local.order, local.isDelete == remote.isDelete { return MergeDecision(.alreadyHave) }
        // The same place for a delete and an edit (only a broken or hostile record): the delete.
        let remoteWins = remote.order == local.order ? remote.isDelete : remote.order > local.order
        let action: MergeDecision.Action = remoteWins ? .takeRemote : .keepLocal(resend: !hasPendingChange)
        // An untouched sample on either side is nobody's work: no conflict.
        func isSample(_ side: MergeCase.Side) -> Bool {
            if case .idea(_, let stamps) = side { stamps.isUntouchedSample } else { false }
        }
        guard hasPendingChange, !isSample(local), !isSample(remote), !(local.isDelete && remote.isDelete) else {
            return MergeDecision(action)
        }
        return MergeDecision(action, conflict: resolution(local: local.order, remote: remote.order))
    }

    /// Both sides hold the idea: each field from the side that stamped it later.
    private static func decide(
        mine: Idea, myStamps: FieldStamps, theirs: Idea, theirStamps: FieldStamps,
        hasPendingChange: Bool, thisDevice: String
    ) -> MergeDecision {
        if myStamps == theirStamps, mine.createdAt == theirs.createdAt, mine.fieldsDiffering(from: theirs).isEmpty {
            return MergeDecision(.alreadyHave)
        }
        if myStamps.isUntouchedSample { return MergeDecision(.takeRemote) }
        if theirStamps.isUntouchedSample { return MergeDecision(.keepLocal(resend: !hasPendingChange)) }

        var merged = mine
        var stamps = myStamps
        var differing: [IdeaField: ConflictResolution] = [:]
        for field in IdeaField.allCases {
            let my = myStamps[field]
            let their = theirStamps[field]
            // Equal stamps with different values come only from a broken or hostile record:
            // the larger value, so every device settles them alike.
            if their > my || (their == my && theirs.value(of: field) > mine.value(of: field)) {
                merged = merged.taking(field, from: theirs)
                stamps[field] = their
            }
            if my != their, mine.value(of: field) != theirs.value(of: field) {
                differing[field] = resolution(local: my, remote: their)
            }
        }
        merged.createdAt = min(mine.createdAt, theirs.createdAt)
        merged.version = max(mine.version, theirs.version)
        let latest = stamps.latest
        merged.deviceId = latest.deviceId
        merged.updatedAt = max(latest.timestamp, merged.createdAt)

        let action: MergeDecision.Action
        if stamps == theirStamps, merged.createdAt == theirs.createdAt, merged.fieldsDiffering(from: theirs).isEmpty {
            action = .takeRemote
        } else if stamps == myStamps, merged.createdAt == mine.createdAt, merged.fieldsDiffering(from: mine).isEmpty {
            action = .keepLocal(resend: !hasPendingChange)
        } else {
            action = .merged(merged, stamps)
        }
        // A clash: a field this device wrote and another device wrote too, since this device
        // last had the idea from the remote (or after this device's write). Fields only one
        // side changed merge without a word.
        let lastSynced = mine.lastSyncedAt ?? Timestamp(milliseconds: Int64.min)
        let clashing = differing.filter { field, _ in
            let my = myStamps[field]
            let their = theirStamps[field]
            return my.deviceId == thisDevice && my.timestamp > lastSynced && their.deviceId != thisDevice
                && (their > my || their.timestamp > lastSynced)
        }
        // Which side's value lost each logged field: the history says "lost a merge" of
        // exactly these, so it and the conflict log tell the same story.
        func losers(of fields: [IdeaField: ConflictResolution]) -> (here: [IdeaField], there: [IdeaField]) {
            let remoteWon = IdeaField.allCases.filter { fields[$0] != nil && stamps[$0] == theirStamps[$0] }
            return (remoteWon, IdeaField.allCases.filter { fields[$0] != nil && !remoteWon.contains($0) })
        }
        if hasPendingChange, !clashing.isEmpty {
            let lost = losers(of: clashing)
            return MergeDecision(
                action, conflict: resolution(local: myStamps.latest, remote: theirStamps.latest), conflictFields: clashing,
                lostHere: lost.here, lostThere: lost.there)
        }
        // This device's sent edit of a field lost to another device's edit of the same
        // version, made without seeing it: the losing side learns of it too.
        // (An edit, not the idea's creation; the versions say the other device had not
        // seen it: its version is not past this device's.)
        let replaced = differing.filter { field, settled in
            settled != .local && myStamps[field].deviceId == thisDevice && theirStamps[field].deviceId != thisDevice
                && myStamps[field].timestamp > mine.createdAt
        }
        if !hasPendingChange, !replaced.isEmpty, theirs.version <= mine.version {
            return MergeDecision(
                action, conflict: resolution(local: myStamps.latest, remote: theirStamps.latest),
                conflictFields: replaced, lostHere: losers(of: replaced).here, replacedThisDevicesEdit: true)
        }
        return MergeDecision(action)
    }

    /// How a meeting of `local` and `remote` was settled.
    private static func resolution(local: SyncOrder, remote: SyncOrder) -> ConflictResolution {
        if remote.timestamp == local.timestamp { return .tieBreaker }
        return remote > local ? .remote : .local
    }
}
