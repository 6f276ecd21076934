import Foundation
import IdeaBoxFoundation
import IdeaModel

/// What a sync log line says happened, with its values, kept as such (JSON beside the
/// line), so that each surface says it in the person's language: a new kind of line has
/// no words until both languages are written here (the switch is exhaustive). Lines about
/// what another layer owns the words of (a failure, the library) carry both languages'.
public enum SyncLogEvent: Sendable, Equatable, Codable {
    /// This device sent `count` changes.
    case sent(count: Int)
    /// `count` changes of other devices were applied here.
    case applied(count: Int)
    /// Both sides wrote the idea: the fields both wrote, which side each went to and whose
    /// value it kept, and the outcome (for a delete against an edit, `kept` says which).
    case conflict(title: String, id: String, fields: [FieldOutcome], resolution: ConflictResolution, kept: KeptVersion? = nil)
    /// Another device's newer edit replaced an edit this device had sent.
    case editReplaced(title: String)
    /// The integrity check found nothing to say.
    case integrityAgrees
    /// The integrity check found more differences than it logs one by one.
    case integrityMoreDifferences(count: Int)
    /// The integrity check compared nothing: this device holds more ideas than it compares.
    case integrityLeftOut(ideas: Int, limit: Int)
    /// The integrity check found an idea here the remote lacks.
    case onlyHere(title: String, id: String)
    /// The integrity check found an idea on the remote this device lacks.
    case onlyOnRemote(title: String, id: String)
    /// The integrity check found an idea that differs (the times of the two versions).
    case differs(title: String, id: String, here: Timestamp, remote: Timestamp)
    /// The remote forgot this device's place in its history: everything is fetched again.
    case changeTokenExpired
    /// A remote record that is no idea was skipped.
    case skippedInvalidRecord(name: String)
    /// The remote's zone was gone: made again, and everything sent again.
    case zoneMissing
    /// The remote is being overwritten with this device's `count` ideas.
    case overwriting(count: Int)
    /// An overwrite of the remote did not finish: what it had not sent was taken back here.
    case overwriteAbandoned
    /// The profile was signed in to another account while a sync was under way: that sync
    /// stopped, writing nothing of the account before; the next one syncs with the new one.
    case accountMovedDuringSync
    /// Times later than the remote's clock (a clock that ran ahead) were brought back to
    /// the present on `count` ideas and deletes, which go out again.
    case futureTimesBroughtBack(count: Int)
    /// A damaged database was repaired: what it kept, and the name the damaged file is kept under.
    case repaired(ideas: Int, deletes: Int, pendingChanges: Int, damagedCopy: String)
    /// A line whose words belong to another layer (a failure, the library), in both languages.
    case words(english: String, chinese: String)

    /// One field both sides wrote, the side it went to, and the device whose value it kept
    /// (nil on lines logged before devices had names).
    public struct FieldOutcome: Sendable, Equatable, Codable {
        public var field: IdeaField
        public var winner: ConflictResolution
        public var keptFrom: String?

        public init(_ field: IdeaField, _ winner: ConflictResolution, keptFrom: String? = nil) {
            self.field = field
            self.winner = winner
            self.keptFrom = keptFrom
        }
    }

    /// The version a conflict settled whole (a delete against an edit) kept: whose, and
    /// whether it was the delete.
    public struct KeptVersion: Sendable, Equatable, Codable {
        public var deviceId: String
        public var isDelete: Bool

        public init(deviceId: String, isDelete: Bool) {
            self.deviceId = deviceId
            self.isDelete = isDelete
        }
    }

    /// The line in `language`, naming devices by `names` (without them: this device, or
    /// another device).
    public func text(in language: Language, names: DeviceNames? = nil) -> String {
        let english = language == .english
        switch self {
        case .sent(let count):
            return english ? "sent \(count) change(s)" : "已送出 \(count) 筆變更"
        case .applied(let count):
            return english ? "applied \(count) remote change(s)" : "已套用 \(count) 筆遠端變更"
        case let .conflict(title, id, fields, resolution, kept):
            let words = ConflictWords(language: language, names: names)
            let detail = fields.isEmpty
                ? [words.kept(kept, winner: resolution)]
                : fields.map { words.kept($0.field, from: $0.keptFrom, winner: $0.winner) }
            return english
                ? "“\(title)” (\(id)): kept " + detail.joined(separator: ", ")
                : "「\(title)」（\(id)）的衝突：保留" + detail.joined(separator: "、")
        case .editReplaced(let title):
            return english
                ? "a newer edit from another device replaced this device's edit of “\(title)”" : "其他裝置較新的編輯取代了這台裝置對「\(title)」的編輯"
        case .integrityAgrees:
            return english ? "integrity: this device and the remote agree" : "完整性檢查：這台裝置與遠端一致"
        case .integrityMoreDifferences(let count):
            return english ? "integrity: \(count) more differences" : "完整性檢查：另有 \(count) 處不一致"
        case let .integrityLeftOut(ideas, limit):
            return english
                ? "integrity: not checked: \(ideas) ideas is more than the \(limit) it compares"
                : "完整性檢查：未檢查，\(ideas) 筆靈感超過可比對的 \(limit) 筆"
        case let .onlyHere(title, id):
            return english ? "integrity: “\(title)” (\(id)) is here but not on the remote" : "完整性檢查：「\(title)」（\(id)）在這台裝置上，但不在遠端"
        case let .onlyOnRemote(title, id):
            return english ? "integrity: “\(title)” (\(id)) is on the remote but not here" : "完整性檢查：「\(title)」（\(id)）在遠端，但不在這台裝置上"
        case let .differs(title, id, here, remote):
            return english
                ? "integrity: “\(title)” (\(id)) differs: here \(here.iso8601), remote \(remote.iso8601)"
                : "完整性檢查：「\(title)」（\(id)）不一致：這台裝置 \(here.iso8601)，遠端 \(remote.iso8601)"
        case .changeTokenExpired:
            return english ? "change token expired: fetching everything again" : "變更權杖已過期：重新取得全部資料"
        case .skippedInvalidRecord(let name):
            return english ? "skipped an invalid remote record \(name)" : "略過無效的遠端紀錄 \(name)"
        case .zoneMissing:
            return english
                ? "the remote zone was missing: creating it and sending everything again" : "遠端區域不存在：建立後重新送出全部資料"
        case .overwriting(let count):
            return english ? "overwriting the remote with this device's \(count) ideas" : "以這台裝置的 \(count) 筆靈感覆寫遠端"
        case .futureTimesBroughtBack(let count):
            return english
                ? "\(count) idea(s) carried times later than the remote's clock (a clock that ran ahead): brought back to now and sent again"
                : "\(count) 筆靈感的時間晚於遠端的時鐘（時鐘走快了）：已改為現在並重新送出"
        case .accountMovedDuringSync:
            return english
                ? "signed in to another account during a sync: it stopped, and the next sync is with the new account"
                : "同步期間登入了另一個帳號：這次同步已停止，下次同步改與新帳號進行"
        case .overwriteAbandoned:
            return english
                ? "the overwrite of the remote did not finish: what it had not sent is taken back here and never sent later"
                : "覆寫遠端未完成：尚未送出的部分已在這台裝置上撤回，之後也不會送出"
        case let .repaired(ideas, deletes, pendingChanges, damagedCopy):
            return english
                ? "repair: kept \(ideas) idea(s), \(deletes) delete(s) and \(pendingChanges) change(s) to send of a damaged database, "
                    + "kept as \(damagedCopy); the next sync fetches everything again"
                : "修復：從損壞的資料庫保留 \(ideas) 筆靈感、\(deletes) 筆刪除與 \(pendingChanges) 筆待送出變更，損壞的檔案另存為 \(damagedCopy)；下次同步會重新取得全部資料"
        case let .words(englishText, chineseText):
            return english ? englishText : chineseText
        }
    }

    /// The kind of line it is, as the log labels it.
    public var kind: SyncLogEntry.Kind {
        switch self {
        case .sent: .upload
        case .applied: .download
        case .conflict, .editReplaced: .conflict
        case .integrityAgrees, .integrityLeftOut, .accountMovedDuringSync: .info
        case .integrityMoreDifferences, .onlyHere, .onlyOnRemote, .differs, .changeTokenExpired, .skippedInvalidRecord,
             .zoneMissing, .overwriting, .overwriteAbandoned, .futureTimesBroughtBack, .repaired:
            .warning
        case .words: .info
        }
    }

}

/// A conflict line's words: whose value was kept, and why, in one language.
struct ConflictWords {
    let language: Language
    let names: DeviceNames?

    private var english: Bool { language == .english }

    /// Why a value was kept: it was written later, or at the same moment and the device
    /// order settled it.
    func why(_ winner: ConflictResolution) -> String {
        switch (winner, english) {
        case (.tieBreaker, true): "the same moment: device order"
        case (.tieBreaker, false): "同一時刻：依裝置順序"
        case (_, true): "the later edit"
        case (_, false): "較晚的編輯"
        }
    }

    /// The device whose value was kept, as a possessive: "laptop's", "this device's"; nil
    /// when the line does not say (logged before devices had names, settled by device order).
    private func owner(_ deviceId: String?, winner: ConflictResolution) -> String? {
        let name: String? = if let deviceId {
            (names ?? DeviceNames(thisDevice: "")).name(of: deviceId, in: language)
        } else {
            switch (winner, english) {
            case (.local, true): "this device"
            case (.local, false): "這台裝置"
            case (.remote, true): "another device"
            case (.remote, false): "另一台裝置"
            case (.tieBreaker, _): nil
            }
        }
        guard let name else { return nil }
        return english ? name + "'s" : DeviceNames.spaced(name) + "的"
    }

    /// "laptop's title (the later edit)".
    func kept(_ field: IdeaField, from deviceId: String?, winner: ConflictResolution) -> String {
        let fieldName = english && field == .isCompleted ? "done mark" : field.name(in: language)
        let whose = owner(deviceId, winner: winner).map { english ? $0 + " " : $0 } ?? (english ? "the " : "")
        return english ? "\(whose)\(fieldName) (\(why(winner)))" : "\(whose)\(fieldName)（\(why(winner))）"
    }

    /// "laptop's delete (the later edit)", for a conflict settled whole.
    func kept(_ version: SyncLogEvent.KeptVersion?, winner: ConflictResolution) -> String {
        let what = switch (version?.isDelete, english) {
        case (true?, true): "delete"
        case (true?, false): "刪除"
        case (false?, true): "edit"
        case (false?, false): "編輯"
        case (nil, true): "version"
        case (nil, false): "版本"
        }
        let whose = owner(version?.deviceId, winner: winner).map { english ? $0 + " " : $0 } ?? (english ? "one " : "其中一個")
        return english ? "\(whose)\(what) (\(why(winner)))" : "\(whose)\(what)（\(why(winner))）"
    }
}
