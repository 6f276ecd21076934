extension AppModel {
    /// Lines of the sync log overlay that show at once: the screen less the header, the
    /// box's edges, its footer and the status lines.
    public var syncLogVisibleRows: Int { layout.overlayTextRows }
    /// The columns a sync log line may take before it wraps: the overlay's, less its frame.
    public var syncLogTextWidth: Int { layout.overlayTextWidth }

    /// A key while help is open: the scrolling keys scroll it, any other key closes it.
    func handleHelp(_ key: Key) {
        if help?.scroll(by: key) != true { help = nil }
    }

    /// A key while the sync log is open: scrolling, the overwrite questions, or closing it.
    func handleSyncLog(_ key: Key) throws {
        guard var log = syncLog else { return }
        let outcome = log.handle(key, text: text, width: syncLogTextWidth, visibleRows: syncLogVisibleRows) {
            sync?.engine.companionNames.contains(Self.libraryCompanion) == true ? Self.libraryCompanion : nil
        }
        syncLog = log
        switch outcome {
        case .none: break
        case .close: syncLog = nil
        case .quit:
            syncLog = nil
            wantsToQuit = true
        case .openHistoryOfTopConflict: try openHistoryOfTopConflict()
        case .overwrite(.ideas):
            guard let sync else { return }
            sync.engine.overwriteRemote()
            status.show(text.overwriteRequested, now: now)
        case .overwrite(.companion(let name)):
            guard let sync else { return }
            sync.engine.overwriteRemote(companionNamed: name)
            status.show(text.libraryOverwriteRequested, now: now)
        }
    }

    /// Re-reads the sync log overlay's lines.
    func loadSyncLog() throws {
        guard var log = syncLog else { return }
        log.entries = try repository.syncLog(limit: 200)
        log.conflicts = try repository.conflicts()
        log.deviceNames = try repository.deviceNames()
        syncLog = log
    }
}
