import struct Foundation.UUID
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync

/// Everything the full-screen app shows and does, without a terminal: the tabs and their
/// lists, the search field, the edit form, the delete question, the overlays (help, history,
/// sync log, full-screen preview) and the status bar, each a value of its own that the screen
/// draws. The terminal layer feeds it keys and ticks and draws what it holds.
public final class AppModel {
    /// The tabs, in order.
    public enum Tab: Int, CaseIterable, Sendable {
        case all, completed, search
    }

    /// The smallest screen the app draws on; below it, a notice.
    public static let minimumSize = (rows: 10, columns: 40)

    /// The words of the app, in the user's language, naming the keys bound.
    public private(set) var text: UIText
    /// The open tab.
    public internal(set) var tab: Tab = .all
    /// The counts shown on the tabs.
    public private(set) var counts = IdeaCounts(all: 0, completed: 0)
    /// The tab bar as it shows now: the tabs, their counts, the open one.
    public var tabBar: TabBar { TabBar(openTab: tab, counts: counts, text: text, columns: size.columns) }
    /// The All Ideas list.
    public let allIdeas: IdeaListModel
    /// The Completed list.
    public let completedIdeas: IdeaListModel
    /// The search results.
    public let searchResults: IdeaListModel
    /// The search field.
    public internal(set) var search = SearchField()

    /// The number of search matches to show: exact, or the lower bound while capped.
    public var searchMatchCount: Int {
        search.isCountCapped ? Self.quickSearchCount : searchResults.totalCount
    }
    /// The open edit form, if any.
    public internal(set) var form: IdeaForm?
    /// The deletion that awaits y/n, if any.
    public internal(set) var deleteQuestion: DeleteQuestion?
    /// Which key does what in the lists, the form and the search field (the config file's
    /// tables, else the defaults).
    public var keys = AppKeys() {
        didSet {
            text.keys = keys
            help?.text = text
        }
    }
    /// Which key does what in the lists (the config file's `[keys]`, else the defaults).
    public var bindings: KeyBindings {
        get { keys.list }
        set { keys.list = newValue }
    }
    /// Whether the list shows when each idea changed as a date and time, not "3h ago".
    public var showsAbsoluteTimes = false
    /// Where a selection of many rows (`v`) started in the open list, if one is open.
    public internal(set) var selectionAnchor: Int?
    /// What `y` asked to copy, until the terminal layer takes it (`takeClipboardRequest()`).
    public internal(set) var clipboardRequest: String?
    /// Starts a program that opens a link (`gx`); returns false if there is none to start.
    /// Set by the app (xdg-open); by default none is.
    public var openLink: (String) -> Bool = { _ in false }
    /// The help overlay (`?`), if open.
    public internal(set) var help: HelpOverlay?
    /// Whether the help overlay is open.
    public var isShowingHelp: Bool { help != nil }
    /// Whether the user pressed Ctrl-Z: the terminal layer suspends, then calls `resumed()`.
    public private(set) var wantsToSuspend = false
    /// The status bar.
    public internal(set) var status: StatusModel
    /// Whether the user asked to quit, or damage found by the page check stops the app.
    public internal(set) var wantsToQuit = false
    /// The damage that stops the app (`stop(onDamageFoundBy:)`): the command says it once the
    /// terminal is back.
    public internal(set) var stopFailure: (any Error)?
    /// The screen size, in rows and columns.
    public private(set) var size = (rows: 24, columns: 80)
    /// The sync log overlay's contents, while it is open.
    public internal(set) var syncLog: SyncLogView?
    /// The history overlay (`h`), if open.
    public internal(set) var historyView: HistoryView?
    /// The ideas with a change the remote has not confirmed for 30 days: marked in the list.
    public private(set) var staleIdeaIds: Set<UUID> = []
    /// What the person's own editor should open now (`E`, or Ctrl-X Ctrl-E in the form): the
    /// terminal layer gives the terminal to the editor, then calls `finishEditing(_:)`.
    public internal(set) var editorRequest: EditorRequest?
    /// Whether the preview pane should show where the screen is wide enough (`p` toggles).
    public internal(set) var isPreviewPaneWanted = true
    /// The selected idea shown full screen (`p` on a narrow screen), if it is.
    public internal(set) var fullPreview: FullPreview?
    /// Whether the selected idea is shown full screen.
    public var isShowingFullPreview: Bool { fullPreview != nil }
    /// The choices a config file or the command line makes; the defaults otherwise.
    public let settings: AppSettings

    let repository: IdeaRepository
    let clock: WallClock
    let sync: SyncHooks?
    /// What `u` and `Ctrl-R` undo and redo.
    public internal(set) var history = UndoHistory()
    /// The idea the left button last pressed on, and when, to tell a double click.
    var lastPress: (ideaId: UUID, at: Timestamp)?
    /// The key just pressed that starts a two-key sequence, with the row it was pressed on
    /// and when: it waits for its second key `sequenceWait` milliseconds at most.
    var pendingPrefix: PendingPrefix?
    private var knownRevision: Int64 = -1
    /// When the last key was done with, for the upkeep that waits until nobody types
    /// (`clearLeftSearchEntriesWhileIdle`).
    var lastKeyAt = Timestamp(milliseconds: 0)
    /// Whether deletes may have left search entries to take out (each change may).
    var mayHaveLeftSearchEntries = true
    /// How many times this app has seen the database change (`refresh`).
    var changesSeen = 0
    /// The upkeep taking out left search entries, while it runs, and `changesSeen` when it began.
    var searchUpkeep: (changesSeen: Int, read: BackgroundRead<Bool>)?
    /// What the devices of the account are called, as of the last refresh.
    public internal(set) var deviceNames: DeviceNames
    /// Whether this run has said that this machine's clock is off (once is enough).
    private var hasToldOfClock = false
    /// The read of every page running beside the app, until it has found damage or none.
    var pageCheck: PageCheck?
    /// Where reads that may take long run (a search's exact count): the app gives them a
    /// queue of their own; by default they run at once.
    public var backgroundReads = BackgroundReads.inline
    /// The exact count of a capped search, while it runs.
    var exactSearchCount: (filter: IdeaFilter, read: BackgroundRead<Int>)?

    /// How long the first key of a two-key sequence (`g` of `g x`) waits for its second, in
    /// milliseconds: long enough to reach a key, short enough that a key pressed after a
    /// pause is taken as itself (`g`, a pause, `x` goes to the top and marks it done).
    public static let sequenceWait: Int64 = 1000

    /// How many search hits to count before the first frame; the exact count follows.
    /// The same number the store's search planner needs, so one count serves both.
    static let quickSearchCount = IdeaRepository.searchCandidateLimit
    /// The name of the library folder's sync companion, whose overwrite `L` asks for.
    static let libraryCompanion = "library"

    /// The app over `repository`, speaking `language`, reading time from `clock`, with
    /// `sync` running in the background (nil: local only).
    public init(
        repository: IdeaRepository, language: Language, clock: WallClock, sync: SyncHooks? = nil, settings: AppSettings = AppSettings()
    ) {
        self.repository = repository
        self.settings = settings
        self.clock = clock
        self.sync = sync
        deviceNames = DeviceNames(thisDevice: repository.deviceId)
        text = UIText(language: language, timeZone: clock.timeZone)
        status = StatusModel(sync: SyncWords(text.localOnly))
        allIdeas = IdeaListModel(repository: repository, filter: .all)
        completedIdeas = IdeaListModel(repository: repository, filter: .completed)
        searchResults = IdeaListModel(repository: repository, filter: .search(""))
    }

    /// The current time, as the app's clock says.
    public var now: Timestamp { clock.now() }

    /// The list of the open tab.
    public var currentList: IdeaListModel {
        switch tab {
        case .all: allIdeas
        case .completed: completedIdeas
        case .search: searchResults
        }
    }

    /// Whether the screen is too small to draw the app.
    public var isTooSmall: Bool {
        size.rows < Self.minimumSize.rows || size.columns < Self.minimumSize.columns
    }

    /// Where each part of the screen is now.
    public var layout: ScreenLayout { ScreenLayout(rows: size.rows, columns: size.columns, tab: tab) }

    /// Rows above a tab's list: the tab bar and a rule, plus the search field and a
    /// rule on the Search tab.
    public var listTop: Int { layout.listTop }

    /// Rows of a tab's list: all but the header, the hint line and the status bar.
    public var listHeight: Int { layout.listHeight }

    /// The order of All Ideas and Completed.
    public var listOrder: IdeaOrder { allIdeas.order }

    /// Reads everything for the first frame, in the order this profile last chose.
    public func start() throws {
        let order = try repository.listOrder() ?? settings.sortOrder
        try allIdeas.setOrder(order)
        try completedIdeas.setOrder(order)
        try refresh()
        // Airplane mode outlives the app: a launch with it on says so before anything else.
        if let sync, (try? sync.isNetworkOn()) == false {
            status.show(text.offlineAtLaunch, tone: .error, now: now)
        }
    }

    /// Sets the screen size and lays the lists out for it.
    public func resize(rows: Int, columns: Int) {
        size = (rows, columns)
        help?.rows = rows
        help?.columns = columns
        for (list, tab) in [(allIdeas, Tab.all), (completedIdeas, .completed), (searchResults, .search)] {
            list.setViewportHeight(ScreenLayout(rows: rows, columns: columns, tab: tab).listHeight)
        }
        if var form {
            form.descriptionWrapWidth = Self.formTextWidth(columns: columns)
            self.form = form
        }
    }

    /// The width the form's text fields take on a screen `columns` wide.
    public static func formTextWidth(columns: Int) -> Int {
        max(10, min(columns, 100) - 6)
    }

    /// Work that isn't a key: notices changes made by other processes, finishes a search
    /// count, expires messages. Returns whether the screen needs drawing.
    @discardableResult
    public func tick() -> Bool {
        var changed = status.expireMessage(now: now)
        changed = noticeDamage() || changed
        if let prefix = pendingPrefix, !isWaiting(prefix) {
            // The hint line stops saying that it waits.
            pendingPrefix = nil
            changed = true
        }
        changed = refreshSyncState() || changed
        do {
            if try repository.revision() != knownRevision {
                try refresh()
                if historyView != nil { try loadHistory() }
                changed = true
            }
            if syncLog != nil {
                try loadSyncLog()
            }
            if search.isCountCapped {
                changed = try takeExactSearchCount() || changed
            }
            clearLeftSearchEntriesWhileIdle()
        } catch {
            report(error)
            changed = true
        }
        return changed
    }

    /// The terminal came back after a suspend (Ctrl-Z, then `fg`).
    public func resumed() {
        wantsToSuspend = false
    }

    /// Applies one key press (or paste).
    public func handle(_ key: Key) {
        // A terminal sends Alt-x as ESC x, just as a quick Esc then x arrives: outside the
        // form's Alt-B and Alt-F the app takes both keys.
        if case .alt(let character) = key, !(form != nil && "bBfF".contains(character)) {
            handle(.escape)
            handle(.char(character))
            return
        }
        if key != .resize { status.keyPressed() }
        do {
            try dispatch(key)
        } catch {
            report(error)
        }
        // When the key's work ended: a delete of thousands takes a second or two itself.
        lastKeyAt = now
    }

    // MARK: Keys

    private func dispatch(_ key: Key) throws {
        if key == .resize { return }
        let prefix = pendingPrefix.flatMap { isWaiting($0) ? $0 : nil }
        pendingPrefix = nil
        if key == .ctrl("z") {
            wantsToSuspend = true
            return
        }
        if case .mouse(let event) = key {
            try handleMouse(event)
            return
        }
        if isShowingHelp {
            handleHelp(key)
            return
        }
        if form != nil {
            try handleForm(key)
            return
        }
        if historyView != nil {
            try handleHistory(key)
            return
        }
        if syncLog != nil {
            try handleSyncLog(key)
            return
        }
        if isShowingFullPreview {
            handleFullPreview(key)
            return
        }
        if let question = deleteQuestion {
            deleteQuestion = nil
            guard key == .char("y") || key == .char("Y") else { return }
            switch question {
            case .idea(let idea): try delete(idea)
            case .ideas(let ideas): try delete(ideas)
            }
            return
        }
        if tab == .search && search.isFocused {
            try handleSearchField(key)
            return
        }
        try handleList(key, after: prefix)
    }

    private func handleSearchField(_ key: Key) throws {
        switch search.handle(key, keys: keys.search) {
        case .none: break
        // A search runs again only when the text changed.
        case .edited: try runSearch()
        case .action(.results), .action(.leave): break
        case .action(.nextTab): try perform(.nextTab)
        case .action(.previousTab): try perform(.previousTab)
        case .action(.quit): wantsToQuit = true
        }
    }

    // MARK: Actions

    func openForm(_ mode: IdeaForm.Mode) {
        var form = IdeaForm(mode: mode)
        form.descriptionWrapWidth = Self.formTextWidth(columns: size.columns)
        self.form = form
    }

    func switchTo(_ newTab: Tab) throws {
        if newTab != tab { selectionAnchor = nil }
        tab = newTab
        search.isFocused = newTab == .search && search.query.characters.isEmpty
        search.pendingPrefix = nil
    }

    /// `S`: All Ideas and Completed in the next order (created, updated, title), remembered
    /// for this profile. On the Search tab, which keeps newest first, it says so.
    func cycleListOrder() throws {
        guard tab != .search else { return status.show(text.searchKeepsItsOrder, now: now) }
        let order = listOrder.next
        try allIdeas.setOrder(order)
        try completedIdeas.setOrder(order)
        try repository.setListOrder(order)
        status.show(text.sortedBy(order), now: now)
    }

    /// `x`, Space or a click on the `[ ]` box: done becomes not done and the other way round.
    func toggleCompleted(_ idea: Idea) throws {
        let updated = try repository.toggleCompleted(id: idea.id)
        history.record(.setCompleted(idea, isCompleted: updated.isCompleted))
        localChangeHappened()
        try refresh()
        status.show(text.markedDone(updated.isCompleted, updated.title), tone: .success, now: now)
    }

    private func delete(_ idea: Idea) throws {
        let deleted = try repository.deleteIdea(id: idea.id)
        history.record(.delete(deleted))
        localChangeHappened()
        try refresh()
        status.show(text.deleted(deleted.title), now: now)
    }

    /// `s`: a sync now, or why none can happen (offline, signed out, quota full).
    func syncNow() throws {
        guard let sync else { return status.show(text.syncUnavailable, now: now) }
        guard try sync.isNetworkOn() else {
            return status.show(text.syncWhileOffline, tone: .error, now: now, isAboutSync: true)
        }
        // Signed out or over quota: the engine looks again at once (the account file or the
        // quota may have changed), and the message goes as soon as the state does.
        sync.engine.syncNow()
        switch sync.engine.status {
        case .notSignedIn, .signedOutByServer, .signedOutByICloud: status.show(text.syncWhileSignedOut, tone: .error, now: now, isAboutSync: true)
        case .quotaExceeded: status.show(text.syncWhileQuotaExceeded, tone: .error, now: now, isAboutSync: true)
        case .locked: status.show(text.syncWhileLocked, tone: .error, now: now, isAboutSync: true)
        default: status.show(text.syncRequested, now: now, isAboutSync: true)
        }
    }

    /// A search as you type: the first page and a quick, capped count now; `tick()`
    /// replaces the count with the exact one.
    private func runSearch() throws {
        let filter = IdeaFilter.search(search.query.text)
        try searchResults.setFilter(filter, count: countUpToTheCap(filter))
    }

    /// Re-reads counts, lists and the pending count after any change.
    func refresh() throws {
        knownRevision = try repository.revision()
        mayHaveLeftSearchEntries = true
        changesSeen += 1
        deviceNames = try repository.deviceNames()
        if var form, case .edit(let original) = form.mode, let current = try repository.idea(id: original.id) {
            form.ideaChangedElsewhere(current)
            self.form = form
        }
        counts = try repository.counts()
        try allIdeas.reload(count: counts.all)
        try completedIdeas.reload(count: counts.completed)
        if case .search(let query) = searchResults.filter, !query.isEmpty {
            try reloadSearch()
        } else {
            search.isCountCapped = false
            exactSearchCount = nil
        }
        status.pendingCount = try repository.pendingChangeCount()
        staleIdeaIds = try repository.staleIdeaIds()
    }

    func localChangeHappened() {
        sync?.engine.localChangeHappened()
    }

    /// Sets the status bar's sync words from the engine; says whether they changed (they
    /// change every second while a retry counts down).
    private func refreshSyncState() -> Bool {
        guard let sync else { return false }
        let engineStatus = sync.engine.status
        let words = text.syncWords(engineStatus, now: now)
        let companionsPending = sync.engine.companionsPending
        // `live` or `polling` only while the remote answers: offline, signed out or waiting out
        // a failure (a server down), nothing polls; a sync keeps what the bar said before it
        // (after a failure or in local mode, a sync is no answer yet).
        let showsDelivery = switch engineStatus {
        case .starting, .synced: true
        case .syncing: [nil, .starting, .synced].contains(status.settledSyncKind)
        default: false
        }
        let delivery = showsDelivery ? sync.engine.delivery : nil
        let othersChanged = companionsPending != status.companionsPending || delivery != status.delivery
        status.companionsPending = companionsPending
        status.delivery = delivery
        status.syncStateIs(engineStatus.kind)
        guard words != status.sync else { return othersChanged }
        // Sync finished or failed: changes may have been confirmed.
        if let stale = try? repository.staleIdeaIds() { staleIdeaIds = stale }
        status.sync = words
        // Encryption changes only in a sync, and every sync changes the words: read it then.
        status.isEncrypted = engineStatus.canSync && sync.isEncrypted()
        switch engineStatus {
        case .offline, .syncing: status.showsPendingCount = false
        default: status.showsPendingCount = true
        }
        if case .synced = engineStatus { tellOfClockOnce() }
        return true
    }

    /// Shows `message` in the status bar as an error (a bad config file at launch, say).
    public func showError(_ message: String) {
        status.show(message, tone: .error, now: now)
    }

    /// Shows `message` as an error until the next key (the launch's config notice).
    public func showErrorUntilKey(_ message: String) {
        status.showUntilKey(message, tone: .error)
    }

    /// Says once a run, after a sync, that this machine's clock is more than a minute off the
    /// remote's (edits then follow the remote's).
    private func tellOfClockOnce() {
        guard !hasToldOfClock, let estimate = try? repository.remoteClockEstimate(), estimate.holds(on: clock),
              abs(estimate.offset) > RemoteClockEstimate.noticeable
        else { return }
        hasToldOfClock = true
        status.show(text.clockOff(aheadBy: -estimate.offset), now: now)
    }

    func report(_ error: any Error) {
        status.show(message(for: error), tone: .error, now: now)
    }

    /// What `error` says to the person, in the app's language.
    func message(for error: any Error) -> String {
        (error as? UserFacingError)?.message(in: text.language) ?? String(describing: error)
    }
}
