import CloudKitModel
import Foundation

/// What this client itself wrote, so that a long poll woken by nothing but its own upload is
/// known for it (CloudKit "excludes the device where the change originates" from a zone
/// subscription's notifications): each record name saved, with the change tag the server
/// answered, or deleted, by zone, until a carried page shows it back; and the modifies still
/// under way, which a poll's answer waits for, as it may come back before them.
///
/// Only a carried page can be told apart: it names every change after the poll's token, so a
/// page of this client's writes alone proves that no other device changed the zone between.
final class OwnWrites: @unchecked Sendable {
    /// The most writes kept for one zone; past it the zone's are forgotten, and a poll they
    /// wake is answered as another device's change (a fetch that finds nothing new).
    static let maximumPerZone = 1000
    /// The longest a poll's answer waits for this client's modifies under way.
    static let longestWait: TimeInterval = 30

    // Every field is read and written with `condition` locked.
    private let condition = NSCondition()
    /// By zone and record name: the change tag saved, or nil for a delete.
    private var written: [RecordZoneID: [String: String?]] = [:]
    private var underWay: [RecordZoneID: Int] = [:]

    /// A modify of `zone` is sent.
    func begin(_ zone: RecordZoneID) {
        condition.lock()
        defer { condition.unlock() }
        underWay[zone, default: 0] += 1
    }

    /// The modify of `zone` begun before is answered with `result` (nil if it failed: what it
    /// did is unknown, and a poll it wakes fetches).
    func end(_ zone: RecordZoneID, _ result: ModifyResult?) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        underWay[zone, default: 1] -= 1
        if underWay[zone] == 0 { underWay[zone] = nil }
        guard let result else { return }
        var names = written[zone] ?? [:]
        for record in result.saved where record.recordID.zoneID == zone {
            names[record.recordID.recordName] = .some(record.changeTag)
        }
        for recordID in result.deleted where recordID.zoneID == zone {
            names[recordID.recordName] = .some(nil)
        }
        written[zone] = names.count > Self.maximumPerZone ? nil : names
    }

    /// Whether `changes`, a complete page of `zone`, holds nothing but this client's writes as
    /// it made them (the same change tags, the same deletes); if so they are forgotten. Waits
    /// first for this client's modifies of the zone under way; without `waitingForModifies`
    /// (on an event loop) a page met while some are under way is not this client's alone.
    func accountFor(_ changes: ZoneChanges, in zone: RecordZoneID, waitingForModifies: Bool = true) -> Bool {
        guard !changes.moreComing, !(changes.changed.isEmpty && changes.deleted.isEmpty) else { return false }
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: Self.longestWait)
        while underWay[zone] != nil {
            guard waitingForModifies, condition.wait(until: deadline) else { return false }
        }
        guard let names = written[zone] else { return false }
        let ours = changes.changed.allSatisfy { record in
            record.changeTag != nil && names[record.recordID.recordName] == .some(record.changeTag)
        } && changes.deleted.allSatisfy { names[$0.recordID.recordName] == .some(nil) }
        guard ours else { return false }
        for record in changes.changed { written[zone]?[record.recordID.recordName] = nil }
        for deleted in changes.deleted { written[zone]?[deleted.recordID.recordName] = nil }
        return true
    }
}
