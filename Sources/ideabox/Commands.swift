import ArgumentParser
import Foundation
import IdeaBoxCore
import IdeaStore

extension IdeaBoxCommand {
    /// `ideabox add TITLE [-d TEXT] [--done]`
    struct Add: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(abstract: "Add an idea and print its id.")

        @Argument(help: "The title: one line, at most 256 characters.") var title: String
        @Option(name: [.short, .customLong("description")], help: "The description, at most 4096 characters.")
        var description = ""
        @Flag(help: "Mark the idea done.") var done = false
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let idea = try context.openRepository(store).addIdea(title: title, description: description, isCompleted: done)
            print(json ? try Output.json(idea) : idea.idString)
        }
    }

    /// `ideabox list [--completed] [--json] [--limit N]`
    struct List: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(abstract: "List ideas, newest first.")

        @Flag(help: "Only ideas marked done.") var completed = false
        @Flag(help: "Print JSON.") var json = false
        @Option(help: "Print at most this many.") var limit: Int?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run(in context: CommandContext) throws {
            try printIdeas(completed ? .completed : .all, limit: limit, json: json, repository: context.openRepository(store))
        }
    }

    /// `ideabox search QUERY [--json]`
    struct Search: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            abstract: "List ideas whose title or description contains QUERY, ignoring case.")

        @Argument(help: "Any text; one or two Chinese characters work too.") var query: String
        @Flag(help: "Print JSON.") var json = false
        @Option(help: "Print at most this many.") var limit: Int?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run(in context: CommandContext) throws {
            guard !query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw IdeaStoreError.emptyQuery }
            try printIdeas(.search(query), limit: limit, json: json, repository: context.openRepository(store))
        }
    }

    /// `ideabox show ID [--json]`
    struct Show: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(abstract: "Show every field of an idea.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let idea = try context.openRepository(store).idea(matching: id)
            print(json ? try Output.json(idea) : Output.details(idea, language: context.language))
        }
    }

    /// `ideabox edit ID [--title T] [--description D]`
    struct Edit: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(abstract: "Change an idea's title or description.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Option(help: "The new title.") var title: String?
        @Option(name: [.short, .customLong("description")], help: "The new description.") var description: String?
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            guard title != nil || description != nil else { throw CommandError.nothingToEdit }
            let repository = try context.openRepository(store)
            let idea = try repository.editIdea(
                id: repository.idea(matching: id).id, IdeaChanges(title: title, description: description))
            print(json ? try Output.json(idea) : idea.idString)
        }
    }

    /// `ideabox done ID`
    struct Done: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(abstract: "Mark an idea done.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            try setCompleted(true, id: id, json: json, repository: context.openRepository(store))
        }
    }

    /// `ideabox undone ID`
    struct Undone: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(abstract: "Mark an idea not done.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            try setCompleted(false, id: id, json: json, repository: context.openRepository(store))
        }
    }

    /// `ideabox rm ID`
    struct Remove: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete an idea.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let repository = try context.openRepository(store)
            let idea = try repository.deleteIdea(id: repository.idea(matching: id).id)
            print(Output.line(idea))
        }
    }

    /// `ideabox export > ideas.json`
    struct Export: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every idea as JSON, every field included; `import` reads it back.")

        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            try printIdeas(.all, limit: nil, json: true, repository: context.openRepository(store))
        }
    }

    /// `ideabox import FILE`
    struct Import: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            abstract: "Import ideas from a JSON export (`-` reads standard input); all or nothing.")

        @Argument(help: "The file `export` wrote, or `-`.") var file: String
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let ideas = try readExport(file)
            // Restoring an export into a new directory brings its own ideas: no samples.
            let summary = try context.openRepository(store, seedsSamples: false).importIdeas(ideas)
            print(context.language == .english
                ? "Imported \(summary.inserted) new, \(summary.updated) updated, \(summary.unchanged) unchanged."
                : "已匯入：新增 \(summary.inserted) 筆，更新 \(summary.updated) 筆，未變更 \(summary.unchanged) 筆")
        }

        private func readExport(_ path: String) throws -> [Idea] {
            let data: Data
            do {
                data = path == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile()
                    : try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandError.unreadableFile(path, reason: (error as NSError).localizedDescription)
            }
            do {
                return try JSONDecoder().decode([Idea].self, from: data)
            } catch let error as DecodingError {
                throw CommandError.invalidJSON(path, reason: Self.describe(error))
            }
        }

        /// A decoding error in one line: where in the file, and what was wrong.
        private static func describe(_ error: DecodingError) -> String {
            let context: DecodingError.Context
            var detail: String
            switch error {
            case let .dataCorrupted(errorContext):
                context = errorContext
                detail = errorContext.underlyingError.map { ($0 as NSError).localizedDescription } ?? errorContext.debugDescription
                if context.codingPath.isEmpty { detail = "not JSON (\(detail))" }
            case let .keyNotFound(key, errorContext):
                context = errorContext
                detail = "missing \"\(key.stringValue)\""
            case let .typeMismatch(_, errorContext), let .valueNotFound(_, errorContext):
                context = errorContext
                detail = errorContext.debugDescription
            @unknown default:
                return String(describing: error)
            }
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + detail + (detail.hasSuffix(".") ? "" : ".")
        }
    }
}

private func printIdeas(_ filter: IdeaFilter, limit: Int?, json: Bool, repository: IdeaRepository) throws {
    var writer = Output.JSONArrayWriter()
    try repository.forEachIdea(filter, limit: limit) { idea in
        if json {
            try writer.write(idea)
        } else {
            print(Output.line(idea))
        }
    }
    if json { writer.finish() }
}

private func setCompleted(_ isCompleted: Bool, id: String, json: Bool, repository: IdeaRepository) throws {
    let idea = try repository.setCompleted(isCompleted, id: repository.idea(matching: id).id)
    print(json ? try Output.json(idea) : idea.idString)
}
