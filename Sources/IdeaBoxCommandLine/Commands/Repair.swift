import ArgumentParser
import IdeaStore

extension LocalCommands {
    /// `ideabox repair`
    public struct Repair: IdeaBoxSubcommand {
        public static let configuration = CommandConfiguration(
            commandName: "repair",
            abstract: .english("Repair a damaged database: keep every idea that can still be read; the next sync brings back the rest.", chinese: "修復損壞的資料庫：保留每筆還讀得到的靈感；下次同步會取回其餘的。"),
            discussion: .english("""
                A damaged database is replaced by a fresh one holding what can still be read of \
                it (ideas, deletes, changes waiting to be sent, history), and kept beside it as \
                ideabox.sqlite.damaged-DATE-TIME. The next sync fetches everything from the remote \
                again. A whole database is left as it is. Quit the app and `sync --watch` first.
                """, chinese: "損壞的資料庫會換成一個新的，保存其中還讀得到的內容（靈感、刪除、待送出的變更、歷史），損壞的檔案另存在旁邊，名為 ideabox.sqlite.damaged-日期-時間。下次同步會從遠端重新取得全部資料。完好的資料庫維持原樣。請先結束全螢幕介面與 `sync --watch`。"))

        @OptionGroup public var store: StoreOptions

        public init() {}

        public func run(in context: CommandContext) throws {
            let location = try context.location(store)
            let outcome = try DatabaseRepair.repair(
                directory: location.profileDirectory, options: store.selection.commandLineOptions, clock: context.clock)
            print(CommandLineText.repair(outcome, context.language))
        }
    }
}
