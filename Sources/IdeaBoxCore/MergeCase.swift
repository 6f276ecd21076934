/// How a conflict between this device's version of an idea and the remote's was settled.
public enum ConflictResolution: String, Sendable, Codable, CaseIterable {
    /// This device's version was newer.
    case local = "Local"
    /// The remote's version was newer.
    case remote = "Remote"
    /// Both had the same `updatedAt`; `deviceId` decided.
    case tieBreaker = "TieBreaker"
}

/// What a device holds of an idea when the remote's version of it arrives: the input of
/// the conflict rule, which the sync layer decides and the store applies.
public struct MergeCase: Sendable, Equatable {
    /// One side's last change of the idea.
    public struct Side: Sendable, Equatable {
        /// Its place in the sync order.
        public var order: SyncOrder
        /// The idea's version after it, or nil for a delete.
        public var version: Int?

        /// A save of the idea at `version`, or a delete (`version` nil), at `order`.
        public init(order: SyncOrder, version: Int?) {
            self.order = order
            self.version = version
        }

        /// Whether the change is a delete.
        public var isDelete: Bool { version == nil }
    }

    /// This device's last change (its idea or its delete), or nil when it has none.
    public var local: Side?
    /// The remote's change.
    public var remote: Side
    /// Whether this device has a change of the idea the remote has not confirmed.
    public var hasPendingChange: Bool
    /// This device's id.
    public var thisDevice: String

    /// The case of `remote` arriving at a device holding `local`.
    public init(local: Side?, remote: Side, hasPendingChange: Bool, thisDevice: String) {
        self.local = local
        self.remote = remote
        self.hasPendingChange = hasPendingChange
        self.thisDevice = thisDevice
    }
}

/// What to do with a remote change: the output of the conflict rule.
public struct MergeDecision: Sendable, Equatable {
    /// What becomes of the idea here.
    public enum Action: Sendable, Equatable {
        /// The remote's version replaces this device's (a pending change is dropped).
        case takeRemote
        /// This device's version stays; with `resend`, it is queued so the remote catches up.
        case keepLocal(resend: Bool)
        /// The remote holds exactly this device's state: whatever was queued has arrived.
        case alreadyHave
    }

    /// What becomes of the idea here.
    public var action: Action
    /// A conflict to log, settled this way; nil when there was none.
    public var conflict: ConflictResolution?
    /// Whether this device's sent edit was replaced by another device's newer edit made
    /// without seeing it: the losing side's log says so.
    public var replacedThisDevicesEdit: Bool

    /// A decision to `action`, logging `conflict` if any.
    public init(_ action: Action, conflict: ConflictResolution? = nil, replacedThisDevicesEdit: Bool = false) {
        self.action = action
        self.conflict = conflict
        self.replacedThisDevicesEdit = replacedThisDevicesEdit
    }
}
