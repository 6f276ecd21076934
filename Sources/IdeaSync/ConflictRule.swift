import IdeaBoxCore

/// Last write wins, decided here and applied by the store inside its transaction.
///
/// Every change has one place in the sync order (`updatedAt` in milliseconds, then the
/// device id), the same on every device; deletes compete in it too, so an edit older than
/// a delete never brings the idea back. A remote change later than this device's state
/// replaces it; an earlier one is ignored and this device's state is sent again. Where
/// this device had a change pending, the meeting is a conflict and is logged; so is the
/// case where this device's edit had been sent but another device, not having seen it,
/// edited the same version later: the losing device learns of it too.
public enum ConflictRule {
    /// What to do when `merge.remote` arrives at a device holding `merge.local`.
    public static func decide(_ merge: MergeCase) -> MergeDecision {
        guard let local = merge.local else { return MergeDecision(.takeRemote) }
        let remote = merge.remote
        if remote.order == local.order { return MergeDecision(.alreadyHave) }
        let remoteWins = remote.order > local.order
        let settled: ConflictResolution = remote.order.timestamp == local.order.timestamp
            ? .tieBreaker
            : (remoteWins ? .remote : .local)
        if merge.hasPendingChange {
            return MergeDecision(remoteWins ? .takeRemote : .keepLocal(resend: false), conflict: settled)
        }
        guard remoteWins else { return MergeDecision(.keepLocal(resend: true)) }
        if let localVersion = local.version, let remoteVersion = remote.version,
           local.order.deviceId == merge.thisDevice, remote.order.deviceId != merge.thisDevice,
           remoteVersion <= localVersion {
            return MergeDecision(.takeRemote, conflict: settled, replacedThisDevicesEdit: true)
        }
        return MergeDecision(.takeRemote)
    }
}
