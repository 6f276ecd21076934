import ArgumentParser
import IdeaStore

extension LocalCommands {
    /// `ideabox repair`
    public struct Repair: IdeaBoxSubcommand {
        public static let configuration = CommandConfiguration(
            commandName: "repair",
            abstract: "Repair a damaged database: keep every idea that can still be read; the next sync brings back the rest.",
            discussion: """
                A damaged database is replaced by a fresh one holding what can still be read of \
                it (ideas, deletes, changes waiting to be sent, history), and kept beside it as \
                ideabox.sqlite.damaged-DATE-TIME. The next sync fetches everything from the remote \
                again. A whole database is left as it is. Quit the app and `sync --watch` first.
                """)

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
