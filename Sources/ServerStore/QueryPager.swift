import CloudKitModel

/// What a store reads to answer a query (see `QueryPager`), in one snapshot where it can.
public protocol QueryReading {
    /// The row id of `zone`; throws `zoneNotFound` if the account has no such zone.
    func zoneRowID(_ zone: RecordZoneID) async throws -> Int64
    /// The positions `statement` selects in `zone`: its first column is the record name,
    /// then one value per sort of the query (a field's key, or NULL if the record has none;
    /// the record name; a time).
    func positions(_ statement: QuerySQL.Statement, in zone: RecordZoneID) async throws -> [QueryPosition]
    /// The records named `names` in the zone `zoneRowID`, in any order.
    func records(named names: [String], zoneRowID: Int64, in zone: RecordZoneID) async throws -> [RemoteRecord]
}

/// One page of a query, read with a store's SQL (`QuerySQL`): the positions of at most one
/// page and one record more (which tells whether more follow), zone by zone and segment by
/// segment from where the last page ended, then the records of the page alone. When the
/// SQL is not exact, candidates are checked `checkedBatch` records at a time, so a query
/// holds at most a page of positions, one batch of records being checked, and the page's
/// records, whatever the records' sizes; and it checks at most `checkedPerZone` records of
/// each zone, so a filter that admits few records costs a bounded amount per request: the
/// page then ends early (even empty), with a marker from where the checking stopped, as a
/// CloudKit query's page may hold fewer records than asked.
public enum QueryPager {
    /// How many records a query reads at once to check those its SQL cannot decide.
    public static let checkedBatch = 8
    /// The most records one page checks in each zone.
    public static let checkedPerZone = 256

    /// The page of `query` that `reading` finds, with SQL in `dialect`.
    public static func page(_ query: StoredQuery, dialect: QuerySQL.Dialect, reading: some QueryReading) async throws -> StoredQueryPage {
        let sql = QuerySQL(query, dialect: dialect)
        let wanted = max(1, query.limit) + 1
        var found: [QueryPosition] = []
        var zoneRows: [String: Int64] = [:]
        // Where the reading stopped in the zone read least far: every admitted record before
        // it is in `found` (nil: every zone was read to its end).
        var horizon: QueryPosition?
        for zone in query.zones {
            let zoneRowID = try await reading.zoneRowID(zone)
            zoneRows[zone.zoneName] = zoneRowID
            var inZone: [QueryPosition] = []
            var (checked, stoppedAt): (Int, QueryPosition?) = (0, nil)
            segments: for (segment, start) in sql.segments() {
                var after = start
                while true {
                    let batch = sql.isExact ? wanted - inZone.count : checkedBatch
                    let statement = sql.statement(segment, zoneRowID: zoneRowID, zoneName: zone.zoneName, after: after, limit: batch)
                    let positions = try await reading.positions(statement, in: zone)
                    if sql.isExact {
                        inZone += positions
                    } else {
                        let records = try await reading.records(named: positions.map(\.recordName), zoneRowID: zoneRowID, in: zone)
                        let admitted = Set(records.filter(query.admits).map(\.recordID.recordName))
                        inZone += positions.filter { admitted.contains($0.recordName) }
                        checked += positions.count
                    }
                    if inZone.count >= wanted {
                        stoppedAt = inZone.last
                        break segments
                    }
                    guard positions.count == batch, let last = positions.last else { break }
                    after = last
                    if checked >= checkedPerZone {
                        stoppedAt = last
                        break segments
                    }
                }
            }
            if let stoppedAt, horizon.map({ stoppedAt.precedes($0, sorts: query.sorts) }) ?? true { horizon = stoppedAt }
            found = Array(merge(found, inZone, sorts: query.sorts).prefix(wanted))
        }
        if let horizon {
            found = found.filter { !horizon.precedes($0, sorts: query.sorts) }
        }
        let page = Array(found.prefix(max(1, query.limit)))
        // The page's records, read in its order a few at a time until their fields hold the
        // page's budget (`PageBudget`): a page of big records ends there, and says more follow
        // from its last record.
        var records: [RemoteRecord] = []
        var (bytes, taken, chunkSize) = (0, 0, checkedBatch)
        while taken < page.count && bytes < PageBudget.byteBudget {
            let zoneName = page[taken].zoneName
            let chunk = page[taken...].prefix(chunkSize).prefix { $0.zoneName == zoneName }
            guard let zoneRowID = zoneRows[zoneName], let zone = query.zones.first(where: { $0.zoneName == zoneName }) else {
                taken += chunk.count
                continue
            }
            let read = try await reading.records(named: chunk.map(\.recordName), zoneRowID: zoneRowID, in: zone)
            let byName = Dictionary(read.map { ($0.recordID.recordName, $0) }) { first, _ in first }
            for position in chunk {
                taken += 1
                // Deleted since its position was read: not in the page.
                guard let record = byName[position.recordName] else { continue }
                records.append(record)
                bytes += PageBudget.bytes(of: record)
                if bytes >= PageBudget.byteBudget { break }
            }
            // As many as the budget left seems to hold, from the records read so far.
            let average = max(1, bytes / max(1, records.count))
            chunkSize = min(maximumChunk, max(1, (PageBudget.byteBudget - bytes) / average + 1))
        }
        // More follow the page's last record: one cut by its budget, one cut by its count, or
        // (a page cut short) the horizon.
        let next = taken < page.count ? page[taken - 1] : found.count > page.count ? page.last : horizon
        return StoredQueryPage(records: records, next: next)
    }

    /// The most records of a page read at once.
    static let maximumChunk = 200

    /// The positions of two ordered lists, in order.
    static func merge(_ left: [QueryPosition], _ right: [QueryPosition], sorts: [StoredQuery.Sort]) -> [QueryPosition] {
        guard !left.isEmpty else { return right }
        guard !right.isEmpty else { return left }
        var merged: [QueryPosition] = []
        merged.reserveCapacity(left.count + right.count)
        var (i, j) = (0, 0)
        while i < left.count && j < right.count {
            if right[j].precedes(left[i], sorts: sorts) {
                merged.append(right[j])
                j += 1
            } else {
                merged.append(left[i])
                i += 1
            }
        }
        return merged + left[i...] + right[j...]
    }
}
