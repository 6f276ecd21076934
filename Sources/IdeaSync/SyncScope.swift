import CloudKitModel

/// What one sync covers.
enum SyncScope: Equatable {
    /// The ideas and every companion.
    case everything
    /// Only the parts whose zones these are.
    case zones(Set<RecordZoneID>)

    /// Adds what `other` covers.
    mutating func add(_ other: SyncScope) {
        switch (self, other) {
        case (.everything, _), (_, .everything): self = .everything
        case let (.zones(mine), .zones(theirs)): self = .zones(mine.union(theirs))
        }
    }

    /// Whether the part syncing `zone` runs.
    func covers(_ zone: RecordZoneID) -> Bool {
        switch self {
        case .everything: true
        case .zones(let zones): zones.contains(zone)
        }
    }
}
