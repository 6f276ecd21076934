import IdeaStore

extension AppModel {
    /// How long nobody must have typed before a tick takes out deleted ideas' search entries,
    /// in milliseconds.
    static let searchUpkeepIdleWait: Int64 = 1000

    /// How many deleted ideas' search entries one upkeep takes out: a few milliseconds.
    static let searchEntriesClearedPerTick = 24

    /// Takes out a few of the search entries deletes left for later
    /// (`IdeaRepository.clearLeftSearchEntries`), once nobody has typed for a second, beside
    /// the keys (`backgroundReads`): a write waits for the writer, which a sync may hold. A
    /// 10,000-idea delete answers in half the time for leaving them.
    func clearLeftSearchEntriesWhileIdle() {
        if let upkeep = searchUpkeep {
            guard let result = upkeep.read.result else { return }
            searchUpkeep = nil
            // What a change made since the upkeep started may have left is still to come.
            if upkeep.changesSeen == changesSeen {
                // A failure (another process writing) tries again at a later tick.
                mayHaveLeftSearchEntries = (try? result.get()) ?? true
            }
        }
        guard mayHaveLeftSearchEntries, now.milliseconds - lastKeyAt.milliseconds >= Self.searchUpkeepIdleWait else { return }
        let limit = Self.searchEntriesClearedPerTick
        searchUpkeep = (changesSeen, repository.read(backgroundReads) { try $0.clearLeftSearchEntries(limit: limit) })
    }
}
