import Foundation
import IdeaBoxFoundation

/// The seven ideas a new data directory starts with: the old in-memory app's data.
///
/// Their ids are fixed, so the same sample seeded on two devices is one idea, not two.
/// Each language's set has its own writer id, so when an English and a Chinese device
/// meet, the usual last-write-wins order picks one wording deterministically.
public enum SampleIdeas {
    /// The samples in `language`, newest last, an hour apart, the first on the day the
    /// original specs were written.
    public static func ideas(in language: Language) -> [Idea] {
        ideas(in: language, times: { firstCreatedAt.adding(milliseconds: Int64($0) * 3_600_000) })
    }

    /// The samples in `language` as a first launch seeds them: stamped with the current
    /// time `now`, each a millisecond before the next so they keep their order, the newest
    /// a millisecond before `now` so an idea added at once still comes first.
    public static func ideas(in language: Language, stampedAt now: Timestamp) -> [Idea] {
        let count = english.count
        return ideas(in: language, times: { now.adding(milliseconds: Int64($0 - count)) })
    }

    private static func ideas(in language: Language, times: (Int) -> Timestamp) -> [Idea] {
        let texts = language == .english ? english : traditionalChinese
        return texts.enumerated().map { index, text in
            let created = times(index)
            return Idea(
                id: id(index),
                title: text.title,
                description: text.description,
                isCompleted: text.isCompleted,
                createdAt: created,
                updatedAt: created,
                deviceId: "sample-\(language.rawValue)",
                version: 0
            )
        }
    }

    /// The fixed ids of the seven samples.
    public static let ids: [UUID] = (0..<7).map(id)

    /// The fixed id of sample number `index` (0 to 6): `1dea0001-…` to `1dea0007-…`, so
    /// their short ids differ.
    static func id(_ index: Int) -> UUID {
        UUID(uuidString: "1dea000\(index + 1)-5a3e-4000-8000-5a3e1dea5a3e")!
    }

    /// 2025-11-04T09:00:00.000Z, the day the original specs were written.
    private static let firstCreatedAt = Timestamp(milliseconds: 1_762_246_800_000)

    private struct Text {
        var title: String
        var description: String
        var isCompleted: Bool
    }

    private static let english: [Text] = [
        Text(title: "Learn SwiftData", description: "Work through the persistence guide and move the app's in-memory list onto a real store.", isCompleted: false),
        Text(title: "Finish the Liquid Glass tutorial", description: "Redo the tab bar and the cards with the new materials.", isCompleted: true),
        Text(title: "Attend an iOS development workshop", description: "Look for a weekend workshop in Taipei; bring questions about sync.", isCompleted: false),
        Text(title: "Design the app icon", description: "A light bulb inside a box, in two colours. Try a dark-mode variant.", isCompleted: false),
        Text(title: "Write a blog post about CloudKit sync", description: "Change tokens, conflicts and what last-write-wins means for users.", isCompleted: true),
        Text(title: "Sketch a widget for today's ideas", description: "", isCompleted: false),
        Text(title: "Plan a weekly review of ideas", description: "Every Sunday: finish, drop or schedule each open idea.", isCompleted: false),
    ]

    private static let traditionalChinese: [Text] = [
        Text(title: "學習 SwiftData", description: "讀完資料持久化指南，把 App 的記憶體清單搬到真正的資料庫。", isCompleted: false),
        Text(title: "完成 Liquid Glass 教學", description: "用新的材質重做分頁列與卡片。", isCompleted: true),
        Text(title: "參加 iOS 開發工作坊", description: "找一場台北的週末工作坊，帶著同步相關的問題去。", isCompleted: false),
        Text(title: "設計 App 圖示", description: "盒子裡的一顆燈泡，雙色。也試試深色模式的版本。", isCompleted: false),
        Text(title: "寫一篇關於 CloudKit 同步的文章", description: "變更權杖、衝突處理，以及「最後寫入獲勝」對使用者的意義。", isCompleted: true),
        Text(title: "畫一個今日靈感小工具的草圖", description: "", isCompleted: false),
        Text(title: "規劃每週靈感回顧", description: "每個星期日：把每個未完成的靈感完成、放棄或排進行程。", isCompleted: false),
    ]
}
