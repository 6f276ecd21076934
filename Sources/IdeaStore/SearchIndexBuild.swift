import Foundation
import GRDB
import GRDBSQLite
import IdeaModel

/// Both search indexes of a big import into a profile with no idea, built beside it: each on
/// a thread and a temporary database of its own (`SearchIndexBuilder`) while the import writes
/// the ideas' rows, then copied into the database whole, inside the import's transaction.
///
/// FTS5 indexes a token at a time through one hash: at 200,000 ideas that was 56 % of an
/// import (the trigram index two thirds of it), the rows and their B-trees the rest
/// (BENCHMARKS.md, "The `million` run"). The three share nothing until the copy, so on two
/// cores they take about half the time they took one after another.
///
/// The copy takes FTS5's own tables as they are (`<index>_data`, `<index>_idx`): the same
/// SQLite writes and reads them, and each index is built as the database declares it, with
/// its settings. The database's indexes are emptied with FTS5's 'delete-all' first, which
/// also drops what FTS5 held of them in memory, and nothing goes through FTS5 between that
/// and the copy. Where a build fails (no room for its temporary file), the import indexes its
/// ideas itself, as before: never an import lost to its helpers.
final class SearchIndexBuild {
    /// One build of each index, in the order they are copied in: the short grams' first, the
    /// shorter build (43 s of CPU to the trigram index's 54 at a million), so its copy runs
    /// beside the trigram build's end.
    private let builders: [SearchIndexBuilder]

    /// The nice of every build but the trigram index's, the longest: with the import's rows,
    /// three threads share two cores here, and the import ends when the trigram build does.
    /// At the same priority it got two thirds of a core while the rows went in, then ran 12 s
    /// alone after the short grams' build ended (BENCHMARKS.md, "The `million` run").
    static let shorterBuildNiceness: Int32 = 5

    private init(builders: [SearchIndexBuilder]) {
        self.builders = builders
    }

    /// Starts building the search entries of `ideas`, the idea at offset `k` at row id
    /// `firstLocalId + k`, each index as `db` declares it. `location` gives each index's build
    /// its temporary database: SQLite's own by default (a file in the temporary directory,
    /// gone when closed or when the process ends). Nil if a build can't start; the import then
    /// indexes as before.
    static func start(
        _ ideas: [ExportedIdea], firstLocalId: Int64, declaredBy db: Database, location: (_ table: String) -> String = { _ in "" }
    ) throws -> SearchIndexBuild? {
        var builders: [SearchIndexBuilder] = []
        for table in SearchText.indexTables.reversed() {
            guard let declaration = try SearchIndexBuilder.Declaration(of: table, db),
                  let builder = SearchIndexBuilder.start(
                      declaration, Self.writing(table), ideas: ideas, firstLocalId: firstLocalId, location: location(table),
                      niceness: table == "ideaTrigram" ? 0 : Self.shorterBuildNiceness)
            else {
                builders.forEach { $0.cancel() }
                return nil
            }
            builders.append(builder)
        }
        return SearchIndexBuild(builders: builders)
    }

    /// How an idea's entries go into `table`, as `SearchText.index` writes them.
    private static func writing(_ table: String) -> SearchIndexBuilder.Writing {
        if table == "ideaTrigram" {
            return .init(sql: SearchText.indexTrigramSQL) { [SearchText.fold($0.title), SearchText.fold($0.description)] }
        }
        return .init(sql: SearchText.indexShortGramSQL) {
            [SearchText.shortGrams(SearchText.fold($0.title), SearchText.fold($0.description))]
        }
    }

    /// Empties `db`'s indexes, then puts each build's entries in as soon as that build ends;
    /// where a build failed, indexes every idea of `db` itself. Inside the import's
    /// transaction. Returns whether the built entries went in.
    @discardableResult
    func finish(into db: Database) throws -> Bool {
        try SearchText.emptyIndexes(db)
        for builder in builders {
            builder.join()
            guard builder.isBuilt, try builder.copy(into: db) else {
                // A build or its copy failed part way: whatever the copies wrote goes out again.
                cancel()
                try SearchText.emptyIndexes(db)
                try SearchText.indexEveryIdea(db)
                return false
            }
        }
        return true
    }

    /// Stops the builds at their next idea and waits for them: the import failed.
    func cancel() {
        builders.forEach { $0.cancel() }
    }
}
