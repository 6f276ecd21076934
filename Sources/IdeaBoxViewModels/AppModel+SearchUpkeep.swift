import IdeaStore

extension AppModel {
    /// How long nobody must have typed before a tick takes out deleted ideas' search entries,
    /// in milliseconds.
    static let searchUpkeepIdleWait: Int64 = 1000

    /// How many deleted ideas' search entries a tick takes out: a few milliseconds, so a key
    /// that comes during it waits no longer than a frame.
    static let searchEntriesClearedPerTick = 24

    /// Takes out a few of the search entries deletes left for later
    /// (`IdeaRepository.clearLeftSearchEntries`), once nobody has typed for a second: a
    /// 10,000-idea delete then answers in half the time, and its undo too.
    func clearLeftSearchEntriesWhileIdle() throws {
        guard mayHaveLeftSearchEntries, now.milliseconds - lastKeyAt.milliseconds >= Self.searchUpkeepIdleWait else { return }
        mayHaveLeftSearchEntries = try repository.clearLeftSearchEntries(limit: Self.searchEntriesClearedPerTick)
    }
}
