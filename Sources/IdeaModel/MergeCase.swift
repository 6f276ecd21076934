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
    /// One side's state of the idea.
    public enum Side: Sendable, Equatable {
        /// The idea with the stamps of its fields.
        case idea(Idea, FieldStamps)
        /// A delete at this place in the sync order.
        case deleted(SyncOrder)

        /// The side's place in the sync order: its latest field stamp, or its delete.
        public var order: SyncOrder {
            switch self {
            case .idea(_, let stamps): stamps.latest
            case .deleted(let order): order
            }
        }

        /// Whether the side is a delete.
        public var isDelete: Bool {
            if case .deleted = self { true } else { false }
        }
    }

    /// This device's state (its idea or its delete), or nil when it has none.
    public var local: Side?
    /// The remote's state.
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
        /// The remote's state replaces this device's (a pending change is dropped).
        case takeRemote
        /// This device's state stays; with `resend`, it is queued so the remote catches up.
        case keepLocal(resend: Bool)
        /// The remote holds exactly this device's state: whatever was queued has arrived.
        case alreadyHave
        /// Each side won some fields: this merge becomes the state here and is sent.
        case merged(Idea, FieldStamps)
    }

    /// What becomes of the idea here.
    public var action: Action
    /// A conflict to log, settled this way (by the latest stamp); nil when there was none.
    public var conflict: ConflictResolution?
    /// The fields whose values differed in a logged conflict, and which side each went to.
    public var conflictFields: [IdeaField: ConflictResolution]
    /// The fields of a logged conflict in which this device's value lost: its version is
    /// kept in the history as having lost a merge in these, and only these.
    public var lostHere: [IdeaField]
    /// The fields of a logged conflict in which the remote's value lost; likewise.
    public var lostThere: [IdeaField]
    /// Whether this device's sent edit was replaced by another device's newer edit made
    /// without seeing it: the losing side's log says so.
    public var replacedThisDevicesEdit: Bool

    /// A decision to `action`, logging `conflict` if any.
    public init(
        _ action: Action, conflict: ConflictResolution? = nil, conflictFields: [IdeaField: ConflictResolution] = [:],
        lostHere: [IdeaField] = [], lostThere: [IdeaField] = [], replacedThisDevicesEdit: Bool = false
    ) {
        self.action = action
        self.conflict = conflict
        self.conflictFields = conflictFields
        self.lostHere = lostHere
        self.lostThere = lostThere
        self.replacedThisDevicesEdit = replacedThisDevicesEdit
    }
}
