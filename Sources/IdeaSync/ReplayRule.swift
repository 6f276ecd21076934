import IdeaModel
import IdeaStore

/// Whether a version of an idea the remote serves is older than one this device already
/// agreed on with it: a replay (a hostile server serving an earlier sealed version, which the
/// seal alone cannot tell from the present one) or a server restored from an old backup.
///
/// The remote's copy of an idea only moves forward: every save is checked against the
/// server's change tag, and a device that meets a newer copy merges field by field, so each
/// field's stamp on the remote never goes back; a delete replaces an idea only when it is
/// later than its latest field, and an idea replaces a delete only when it is later still.
/// So a version whose every stamp is at most what this device settled with the remote (and
/// not the same), or a delete older than the idea settled here, or an idea older than the
/// delete settled here, can only be an old one served again.
///
/// Only a settled state (no change of this device's waiting to be sent) is compared: it is
/// the last version this device and the remote agreed on. Where a change waits, an older
/// version may be another device's edit made concurrently with it, and it merges field by
/// field by the conflict rule as usual. An older but concurrent edit of another field is
/// not a replay either: its stamp for that field is later than the settled one.
public enum ReplayRule {
    /// Whether `remote` is older than the state `settled` this device agreed on with the remote.
    public static func isReplay(_ remote: RemoteChange, settled: RemoteChange) -> Bool {
        switch (settled, remote) {
        case let (.saved(_, mine), .saved(_, theirs)):
            theirs != mine && IdeaField.allCases.allSatisfy { theirs[$0] <= mine[$0] }
        case let (.saved(_, mine), .deleted(_, order)):
            order < mine.latest
        case let (.deleted(_, mine), .saved(_, theirs)):
            theirs.latest < mine
        case let (.deleted(_, mine), .deleted(_, order)):
            order < mine
        }
    }
}
