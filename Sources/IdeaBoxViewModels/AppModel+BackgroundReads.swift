import IdeaStore

/// What the app reads beside its main loop: the check of every page at the start, whose
/// damage stops the app, and a capped search's exact count.
extension AppModel {
    /// Starts counting the capped search's hits exactly (300,000 of a million ideas take a
    /// while: keys go on meanwhile), or takes the count once it has come; whether the screen
    /// changed.
    func takeExactSearchCount() throws -> Bool {
        let filter = searchResults.filter
        if exactSearchCount?.filter != filter {
            exactSearchCount = (filter, repository.read(backgroundReads) { try $0.count(filter) })
        }
        guard let result = exactSearchCount?.read.result else { return false }
        exactSearchCount = nil
        try searchResults.reload(count: result.get())
        search.isCountCapped = false
        return true
    }

    /// Reads the open search again after a change, as typing does: a capped count now and
    /// the exact one beside the keys (a common word's exact count at a million ideas takes
    /// half a second, which a change arriving by sync would otherwise hold the keys for).
    /// Meanwhile a list scrolled past the cap keeps the length it had, so its place holds.
    func reloadSearch() throws {
        let quick = try countUpToTheCap(searchResults.filter)
        try searchResults.reload(count: search.isCountCapped ? max(quick, searchResults.totalCount) : quick)
    }

    /// Counts `filter`'s hits up to one past the cap, says whether the count is capped, and
    /// drops an exact count under way (`tick` starts the next): what typing and a change both
    /// do first.
    func countUpToTheCap(_ filter: IdeaFilter) throws -> Int {
        let quick = try repository.count(filter, upTo: Self.quickSearchCount + 1)
        search.isCountCapped = quick > Self.quickSearchCount
        exactSearchCount = nil
        return quick
    }

    /// Stops the app once `check` finds a damaged page, as the app's start did before it read
    /// the pages behind the first frame: at once, or, while the form is open, once it closes
    /// (saved or put away), so that nothing typed is lost. The damage's sentence shows until a
    /// key meanwhile; `stopFailure` holds it for the command to say.
    public func stop(onDamageFoundBy check: PageCheck) {
        pageCheck = check
    }

    /// Takes the page check's damage, if it has found some; whether the screen changed.
    func noticeDamage() -> Bool {
        guard let failure = pageCheck?.failure, !wantsToQuit else { return false }
        var changed = false
        if stopFailure == nil {
            stopFailure = failure
            status.showUntilKey(message(for: failure), tone: .error)
            changed = true
        }
        if form == nil {
            wantsToQuit = true
            changed = true
        }
        return changed
    }
}
