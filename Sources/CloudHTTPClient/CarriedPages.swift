import CloudKitModel
import Foundation
import Synchronization

/// The pages of zone changes that long polls' answers carried (ours, beyond Apple's
/// reference: `?carry=records`), each kept until a fetch after exactly the token it starts
/// from takes it. Only the latest page of a zone is kept: one after an older token would
/// answer a fetch that has since moved on, and a fetch after any other token goes to the
/// server as before.
final class CarriedPages: Sendable {
    private let pages = Mutex<[RecordZoneID: (after: ChangeToken, changes: ZoneChanges)]>([:])

    /// Keeps `changes`, the page of `zone` after `token`.
    func keep(_ changes: ZoneChanges, of zone: RecordZoneID, after token: ChangeToken) {
        pages.withLock { $0[zone] = (token, changes) }
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
