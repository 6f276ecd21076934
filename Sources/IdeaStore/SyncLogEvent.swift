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
    /// Both sides wrote the idea: the fields both wrote, which side each went to, and the outcome.
    case conflict(title: String, id: String, fields: [FieldOutcome], resolution: ConflictResolution)
    /// Another device's newer edit replaced an edit this device had sent.
    case editReplaced(title: String)
    /// The integrity check found nothing to say.
    case integrityAgrees
    /// The integrity check found more differences than it logs one by one.
    case integrityMoreDifferences(count: Int)
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

    /// One field both sides wrote, and the side it went to.
    public struct FieldOutcome: Sendable, Equatable, Codable {
        public var field: IdeaField
        public var winner: ConflictResolution

        public init(_ field: IdeaField, _ winner: ConflictResolution) {
            self.field = field
            self.winner = winner
        }
    }

    /// The line in `language`.
    public func text(in language: Language) -> String {
        let english = language == .english
        switch self {
        case .sent(let count):
            return english ? "sent \(count) change(s)" : "已送出 \(count) 筆變更"
        case .applied(let count):
            return english ? "applied \(count) remote change(s)" : "已套用 \(count) 筆遠端變更"
        case let .conflict(title, id, fields, resolution):
            if english {
                let detail = fields.isEmpty ? "" : ": " + fields.map { "\($0.field.rawValue) \($0.winner.rawValue)" }.joined(separator: ", ")
                return "on “\(title)” (\(id))\(detail); resolved: \(resolution.rawValue)"
            }
            let detail = fields.map { "\($0.field.name(in: language))取\(Self.side($0.winner))" }.joined(separator: "、")
            return "「\(title)」（\(id)）的衝突" + (detail.isEmpty ? "已解決：" : "：\(detail)；") + Self.outcome(resolution)
        case .editReplaced(let title):
            return english
                ? "a newer edit from another device replaced this device's edit of “\(title)”" : "其他裝置較新的編輯取代了這台裝置對「\(title)」的編輯"
        case .integrityAgrees:
            return english ? "integrity: this device and the remote agree" : "完整性檢查：這台裝置與遠端一致"
        case .integrityMoreDifferences(let count):
            return english ? "integrity: \(count) more differences" : "完整性檢查：另有 \(count) 處不一致"
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
        case .integrityAgrees, .accountMovedDuringSync: .info
        case .integrityMoreDifferences, .onlyHere, .onlyOnRemote, .differs, .changeTokenExpired, .skippedInvalidRecord,
             .zoneMissing, .overwriting, .overwriteAbandoned, .futureTimesBroughtBack, .repaired:
            .warning
        case .words: .info
        }
    }

    private static func side(_ winner: ConflictResolution) -> String {
        switch winner {
        case .local: "本機"
        case .remote: "遠端"
        case .tieBreaker: "依裝置識別碼"
        }
    }

    private static func outcome(_ resolution: ConflictResolution) -> String {
        switch resolution {
        case .local: "本機勝出"
        case .remote: "遠端勝出"
        case .tieBreaker: "時間相同，依裝置識別碼決定"
        }
    }
}
