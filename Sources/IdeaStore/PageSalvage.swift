import GRDB

/// The rows of one rowid table found by reading every page of a database file
/// (`DatabaseFilePages`), whatever the table's b-tree still reaches: each row of a table b-tree
/// leaf page whose record has the table's shape (as many values as the table has columns, or
/// fewer if added columns came after it was written; the rowid's alias column NULL, as SQLite
/// stores it) and passes `isRow`, the table's own check of its values.
struct PageSalvage {
    /// The rows found, by rowid: their values by column name, the alias column holding the rowid.
    var rows: [Int64: [String: DatabaseValue]] = [:]
    /// The rowids of the cells that could not be read on pages that hold the table's rows.
    var unreadable: Set<Int64> = []

    /// Reads every page of `pages` for rows of a table whose columns are `layout`, in the order
    /// the table stores them, `rowidAlias` its INTEGER PRIMARY KEY, of which a row holds at least
    /// the first `required`.
    static func read(
        _ pages: DatabaseFilePages, layout: [String], rowidAlias: String, required: Int,
        isRow: ([String: DatabaseValue]) -> Bool
    ) -> PageSalvage {
        var salvage = PageSalvage()
        guard let alias = layout.firstIndex(of: rowidAlias), alias < required, required <= layout.count else { return salvage }
        for number in stride(from: 1, through: pages.pageCount, by: 1) {
            guard let cells = pages.tableLeafCells(onPage: number) else { continue }
            var found: [Int64: [String: DatabaseValue]] = [:]
            var failed: Set<Int64> = []
            for cell in cells {
                guard let rowid = cell.rowid else { continue }
                guard let values = cell.values, (required...layout.count).contains(values.count), values[alias].isNull else {
                    failed.insert(rowid)
                    continue
                }
                // Columns added after the row was written read as NULL: for the ideas, the field
                // stamps (NULL until the next write) and the search copies of the text (made anew).
                var row = Dictionary(uniqueKeysWithValues: zip(layout, values + Array(repeating: .null, count: layout.count - values.count)))
                row[rowidAlias] = rowid.databaseValue
                if isRow(row) { found[rowid] = row } else { failed.insert(rowid) }
            }
            // A page is the table's if any of its rows is: then its other cells were the
            // table's too, and are what could not be read of it.
            guard !found.isEmpty else { continue }
            salvage.rows.merge(found) { first, _ in first }
            salvage.unreadable.formUnion(failed)
        }
        salvage.unreadable.subtract(salvage.rows.keys)
        return salvage
    }
}
