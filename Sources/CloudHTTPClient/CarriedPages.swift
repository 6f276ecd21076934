import CloudKitModel
import Foundation
import Synchronization

/// The pages of zone changes that long polls' answers carried (ours, beyond Apple's
/// reference: `?carry=records`), each kept until a fetch after exactly the token it starts
/// from takes it. A page that starts where the kept one ends joins it, so that a device given
/// two pages before it fetched takes them in one fetch. Any other page replaces the kept one:
/// a page after an older token would answer a fetch that has since moved on, and a fetch
/// after any other token goes to the server as before.
final class CarriedPages: Sendable {
    /// The most changes a joined page holds; past it only the newest page is kept.
    static let maximumChanges = 200

    private let pages = Mutex<[RecordZoneID: (after: ChangeToken, changes: ZoneChanges)]>([:])

    /// Keeps `changes`, the page of `zone` after `token`.
    func keep(_ changes: ZoneChanges, of zone: RecordZoneID, after token: ChangeToken) {
        pages.withLock { pages in
            if let kept = pages[zone], kept.changes.token == token, !kept.changes.moreComing {
                let joined = kept.changes.followed(by: changes)
                if joined.changed.count + joined.deleted.count <= Self.maximumChanges {
                    pages[zone] = (kept.after, joined)
                    return
                }
            }
            pages[zone] = (token, changes)
        }
    }

    /// The page of `zone` after `token`, if one was carried; it is given out once.
    func take(_ zone: RecordZoneID, after token: ChangeToken) -> ZoneChanges? {
        pages.withLock { pages in
            guard let page = pages[zone], page.after == token else { return nil }
            pages[zone] = nil
            return page.changes
        }
    }
}

extension ZoneChanges {
    /// This page and `next`, the page after it, as one: each record once, as `next` has it
    /// if it names it, in the server's order.
    func followed(by next: ZoneChanges) -> ZoneChanges {
        let later = Set(next.changed.map(\.recordID) + next.deleted.map(\.recordID))
        return ZoneChanges(
            changed: changed.filter { !later.contains($0.recordID) } + next.changed,
            deleted: deleted.filter { !later.contains($0.recordID) } + next.deleted,
            token: next.token, moreComing: next.moreComing)
    }
}
