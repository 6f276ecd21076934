import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import ServerStore

/// Ours, beyond Apple's reference: the changes a long poll's answer carries when the device
/// asks for them (`?carry=records`), so that it shows another device's change without one
/// more round trip. The page is exactly what `records/changes` would answer for the zone
/// named, after the zone's token in the poll's `since`: `{since, records, syncToken,
/// moreComing}`. It is carried only when it is small and complete (no `moreComing`, no
/// asset, at most `maximumRecords` records and `maximumBytes` of JSON); otherwise the
/// answer is Apple's alone and the device fetches as before.
struct CarriedChanges {
    /// The most records an answer carries.
    static let maximumRecords = 20
    /// The most bytes of JSON an answer carries (its `changes` object).
    static let maximumBytes = 64 << 10

    /// The answer's `changes` object, as JSON: encoded once for every poll the change woke
    /// (they share it, `SharedPollReads`), and the zone token it brings the device to.
    let json: [UInt8]
    let token: String

    /// The changes of `zone` of `owner` after the zone token `since` (base64, as a
    /// database token spells it), or nil if they are not small and complete, or the token
    /// is not one this server gave out.
    static func after(
        _ since: String, in zone: RecordZoneID, owner: String, userRecordName: String, store: any RecordZoneStore
    ) async -> CarriedChanges? {
        guard let data = Data(base64Encoded: since),
              let changes = try? await store.fetchChanges(
                  account: owner, in: zone, since: ChangeToken(data: data), resultsLimit: maximumRecords + 1),
              !changes.moreComing, changes.changed.count + changes.deleted.count <= maximumRecords,
              !changes.changed.contains(where: { $0.fields.values.contains(where: \.holdsAsset) })
        else { return nil }
        let answer = WebServicesFormat.Answer(userRecordName: userRecordName)
        let records: [JSONValue] = changes.changed.map { .object(WebServicesFormat.object($0, answer)) }
            + changes.deleted.map { .object(WebServicesFormat.object($0)) }
        let token = changes.token.data.base64EncodedString()
        let json = JSONValue.object(["since": .string(since), "records": .array(records), "syncToken": .string(token), "moreComing": false]).bytes
        guard json.count <= maximumBytes else { return nil }
        return CarriedChanges(json: json, token: token)
    }
}

extension FieldValue {
    /// Whether the value is an asset, or a list holding one: its bytes are fetched apart.
    fileprivate var holdsAsset: Bool {
        switch self {
        case .asset: true
        case .list(let items): items.contains(where: \.holdsAsset)
        default: false
        }
    }
}
