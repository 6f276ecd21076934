import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// Realistic ideas for benchmarks: English, Chinese and mixed text, 20 to 500 characters
/// in all, with words drawn unevenly so that some are common and some rare.
struct SampleCorpus {
    private var random: SeededRandomNumberGenerator

    init(seed: UInt64) { random = SeededRandomNumberGenerator(seed: seed) }

    static let englishWords = """
        idea app sync cloud note list task plan design write read learn build test ship fix review \
        meeting weekend project draft sketch widget icon color layout search index database record \
        conflict device account offline network terminal keyboard screen window focus habit garden \
        recipe travel budget podcast article chapter lesson workshop launch feedback release version \
        morning evening coffee music photo video market customer story journey energy simple quick \
        better tiny bright quiet remote local shared private weekly monthly someday maybe important
        """.split(separator: " ").map(String.init)

    static let chineseWords = """
        靈感 同步 雲端 筆記 清單 任務 計畫 設計 寫作 閱讀 學習 建立 測試 發布 修正 回顧 會議 週末 專案 草稿 \
        小工具 圖示 顏色 版面 搜尋 索引 資料庫 紀錄 衝突 裝置 帳號 離線 網路 終端機 鍵盤 螢幕 視窗 專注 習慣 花園 \
        食譜 旅行 預算 播客 文章 章節 課程 工作坊 上線 回饋 版本 早晨 晚上 咖啡 音樂 照片 影片 市場 客戶 故事 \
        旅程 能量 簡單 快速 更好 安靜 遠端 本機 共享 私人 每週 每月 改天 也許 重要 台北 夜市 茶 書店
        """.split(separator: " ").map(String.init)

    /// The next idea's title and description.
    mutating func nextText() -> (title: String, description: String) {
        let total = Int.random(in: 20...500, using: &random)
        let titleLength = min(Int.random(in: 8...60, using: &random), total)
        let style = Int.random(in: 0..<20, using: &random)
        let title = sentence(length: titleLength, style: style)
        let description = sentence(length: total - title.count, style: style)
        return (title, description)
    }

    /// A word drawn with a skew towards the start of the list, as real vocabularies are.
    private mutating func word(from words: [String]) -> String {
        let a = Int.random(in: 0..<words.count, using: &random)
        let b = Int.random(in: 0..<words.count, using: &random)
        return words[min(a, b)]
    }

    /// Text of exactly `length` characters: English (style 0–9), Chinese (10–16) or mixed.
    private mutating func sentence(length: Int, style: Int) -> String {
        var text = ""
        while text.count < length {
            let chinese = style >= 17 ? Bool.random(using: &random) : style >= 10
            if chinese {
                text += word(from: Self.chineseWords)
                if Int.random(in: 0..<6, using: &random) == 0 { text += "，" }
            } else {
                if !text.isEmpty { text += " " }
                text += word(from: Self.englishWords)
            }
        }
        var result = String(text.prefix(length))
        while result.last?.isWhitespace == true || result.first?.isWhitespace == true {
            result = result.trimmingCharacters(in: .whitespaces) + "x"
        }
        return result
    }
}

extension CorpusOptions {
    /// Opens the corpus database under `root`, generating the seeded ideas on first use, so
    /// every benchmark runs on the same data.
    func openRepository() throws -> IdeaRepository {
        let location = try DataLocation(root: root)
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory,
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
        let repository = database.repository(clock: .system, ids: .random)
        let existing = try repository.count(.all)
        if existing < ideas {
            let clock = ContinuousClock()
            let start = clock.now
            var texts = SampleCorpus(seed: 42)
            var ids = SeededRandomNumberGenerator(seed: 7)
            let base = Timestamp(milliseconds: 1_700_000_000_000)
            let generated = (existing..<ideas).map { index in
                let text = texts.nextText()
                let created = base.adding(milliseconds: Int64(index) * 60_000)
                let uuid = UUID(uuid: withUnsafeBytes(of: (ids.next(), ids.next())) { bytes in
                    bytes.load(as: uuid_t.self)
                })
                return Idea(
                    id: uuid, title: text.title, description: text.description,
                    isCompleted: index % 4 == 0, createdAt: created, updatedAt: created, deviceId: "bench")
            }
            let summary = try repository.importIdeas(generated)
            print("generated \(summary.inserted) ideas in \(clock.now - start)")
        }
        return repository
    }
}
