import GRDB

/// One cell of a table b-tree leaf page (https://www.sqlite.org/fileformat2.html#b_tree_pages):
/// a row's rowid and its values, as far as they could be read.
struct TableLeafCell: Equatable {
    /// The row's rowid; nil if the cell's pointer or header is out of the page.
    let rowid: Int64?
    /// The row's values in the table's column order (the rowid's alias column as NULL); nil if
    /// its record or an overflow page it continues on could not be read.
    let values: [DatabaseValue]?
}

extension DatabaseFilePages {
    /// The page type byte of a table b-tree leaf page.
    static let tableLeafType: UInt8 = 0x0D

    /// The cells of page `number` if it is a table b-tree leaf page; nil if it is not one, is
    /// on the freelist, or can't be read.
    func tableLeafCells(onPage number: Int) -> [TableLeafCell]? {
        guard !freePages.contains(number), let page = page(number) else { return nil }
        let header = number == 1 ? 100 : 0
        guard FileBytes.bigEndian(page, at: header, count: 1) == UInt64(Self.tableLeafType),
              let count = FileBytes.bigEndian(page, at: header + 3, count: 2)
        else { return nil }
        let pointers = header + 8
        let contentStart = pointers + 2 * Int(count)
        guard contentStart <= usableSize else { return nil }
        return (0..<Int(count)).map { index in
            guard let offset = FileBytes.bigEndian(page, at: pointers + 2 * index, count: 2).map(Int.init),
                  offset >= contentStart, offset < usableSize
            else { return TableLeafCell(rowid: nil, values: nil) }
            return cell(at: offset, of: page.prefix(usableSize))
        }
    }

    /// The cell at `offset` of `page` (its usable bytes only).
    private func cell(at offset: Int, of page: ArraySlice<UInt8>) -> TableLeafCell {
        guard let size = FileBytes.varint(page, at: offset), let rowid = FileBytes.varint(page, at: offset + size.length)
        else { return TableLeafCell(rowid: nil, values: nil) }
        let start = offset + size.length + rowid.length
        let payload = payload(of: Int(clamping: size.value), startingAt: start, of: page)
        return TableLeafCell(rowid: rowid.value, values: payload.flatMap { DatabaseRecord.values(of: $0, textEncoding: textEncoding) })
    }

    /// The `size` bytes of a cell's payload that start at `start` of `page` and go on, past
    /// what fits on the page, on its chain of overflow pages; nil if any of it can't be read.
    private func payload(of size: Int, startingAt start: Int, of page: ArraySlice<UInt8>) -> [UInt8]? {
        // No payload is larger than the database that holds it.
        guard size >= 0, size <= pageCount * usableSize else { return nil }
        let local = localPayloadSize(size)
        let pageStart = page.startIndex
        guard start >= 0, start + local <= page.count else { return nil }
        var payload = Array(page[pageStart + start..<pageStart + start + local])
        guard local < size else { return payload }
        guard var next = FileBytes.bigEndian(page, at: start + local, count: 4).map(Int.init) else { return nil }
        var visited: Set<Int> = []
        while payload.count < size {
            // A chain that loops, or leaves the database, is damaged.
            guard next >= 2, visited.insert(next).inserted, let overflow = self.page(next),
                  let following = FileBytes.bigEndian(overflow, at: 0, count: 4)
            else { return nil }
            let taken = min(size - payload.count, usableSize - 4)
            payload += overflow.dropFirst(4).prefix(taken)
            next = Int(following)
        }
        return payload
    }

    /// How many bytes of a table leaf cell's payload of `size` bytes are on its own page, as
    /// the file format's rule for table b-tree leaf cells says; the rest is on overflow pages.
    private func localPayloadSize(_ size: Int) -> Int {
        let most = usableSize - 35
        guard size > most else { return size }
        let least = (usableSize - 12) * 32 / 255 - 23
        let fitted = least + (size - least) % (usableSize - 4)
        return fitted <= most ? fitted : least
    }
}
