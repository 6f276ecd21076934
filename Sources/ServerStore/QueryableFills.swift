import Synchronization

/// The backfills of queryable fields (`QueryableFill`) running in this process, one per
/// (account, record type, fields): the queries that name fields not ready yet wait for it,
/// a request's for at most `waitLimit`.
///
/// Concurrent first queries of one field share one fill: the first starts it, the others
/// (and any that comes while it runs) wait for the same one, as does a query whose fields
/// not ready are some of a running fill's. The fill runs in a task of its
/// own, so a query whose client goes away neither cancels it nor leaves it half done for the
/// next; a fill that fails leaves its marks not ready (the store's part), tells its waiters
/// the error, and the next query that names the fields starts it again. A query that has
/// waited `waitLimit` is answered `StillFilling` (the web services' `TRY_AGAIN_LATER`
/// with `retryAfter`) while the fill goes on; a later query joins it, or finds it done.
///
/// The fill moves on through its store's `fillQueryable`, one batch a call: through a
/// `GatedRecordStore`, each batch passes the store's gate on its own, so the fill holds at
/// most one of the gate's places at a time, and only for one batch; the calls of other
/// accounts that wait at the gate are let in between its batches. (Outside the gate it would
/// be one more thread in SQLite's reader and writer waits, and one more connection taken
/// from PostgreSQL's pool past the gate's count, where the calls it counts would wait for it
/// in the pool's own queue: the gate's lines and its bound on calls at once hold only if
/// every call passes it.) A query waiting for a fill holds no place at the gate.
public final class QueryableFills: Sendable {
    /// How long a query waits for a fill before it is answered `StillFilling`: well below a
    /// client's timeout (CloudKit's clients wait 60 s, `serve`'s probes 10 s), and long enough
    /// that the first query of a field over tens of thousands of records is answered whole.
    public static let waitLimit: Duration = .seconds(5)

    /// The `retryAfter`, in seconds, of `StillFilling`: short, since the fill goes on
    /// meanwhile and the query sent again waits for it again (up to `waitLimit`).
    public static let retryAfter: Double = 2

    /// A query waited `waitLimit` for the fill of fields it names, which goes on.
    public struct StillFilling: Error, Equatable, Sendable {
        /// The record type of the fields.
        public var recordType: String
        /// The fields being made queryable, by name.
        public var fieldNames: [String]
        /// When to send the query again, in seconds.
        public var retryAfter: Double

        /// The error of a query that waited for `fieldNames` of `recordType`.
        public init(recordType: String, fieldNames: some Sequence<String>, retryAfter: Double = QueryableFills.retryAfter) {
            self.recordType = recordType
            self.fieldNames = fieldNames.sorted()
            self.retryAfter = retryAfter
        }
    }

    /// What a waiting query is told.
    private enum Outcome: Sendable {
        case done(Result<Void, any Error>)
        case pastDeadline
        case cancelled
    }

    /// One fill under way and the queries waiting for it.
    private final class Run: Sendable {
        private struct State {
            var waiting: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
            /// Answers given before their query began to wait (its deadline or cancellation).
            var early: [UInt64: Outcome] = [:]
            var result: Result<Void, any Error>?
        }

        private let state = Mutex(State())

        var waitingCount: Int { state.withLock { $0.waiting.count } }

        /// Waits for the answer to the query `id`.
        func outcome(of id: UInt64) async -> Outcome {
            await withCheckedContinuation { continuation in
                let known = state.withLock { state -> Outcome? in
                    if let result = state.result { return .done(result) }
                    if let early = state.early.removeValue(forKey: id) { return early }
                    state.waiting[id] = continuation
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        }

        /// Answers the query `id` with `outcome`, unless it has been answered.
        func answer(_ id: UInt64, _ outcome: Outcome) {
            let waiting = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                if let waiting = state.waiting.removeValue(forKey: id) { return waiting }
                if state.result == nil { state.early[id] = outcome }
                return nil
            }
            waiting?.resume(returning: outcome)
        }

        /// Tells every waiting query, and any that comes later, `result`.
        func finish(_ result: Result<Void, any Error>) {
            let waiting = state.withLock { state in
                state.result = result
                state.early = [:]
                defer { state.waiting = [:] }
                return Array(state.waiting.values)
            }
            for query in waiting { query.resume(returning: .done(result)) }
        }
    }

    private struct State {
        var running: [QueryableFill.Key: Run] = [:]
        var nextQuery: UInt64 = 0
        var started = 0
        var deadline: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
        var betweenBatches: (@Sendable (QueryableFill) async throws -> Void)?
    }

    private let state = Mutex(State())

    /// No fill yet.
    public init() {}

    /// How many fills this process has started.
    public var started: Int { state.withLock { $0.started } }

    /// How many fills run now, and how many queries wait for them.
    public var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running.count, $0.running.values.reduce(0) { $0 + $1.waitingCount }) }
    }

    /// Returns once a query has waited long enough for a fill (or once its wait is cancelled):
    /// `waitLimit` by the task clock, unless a test says otherwise.
    public var deadline: @Sendable (Duration) async -> Void {
        get { state.withLock { $0.deadline } }
        set { state.withLock { $0.deadline = newValue } }
    }

    /// Called in the fill's task after each of its batches (not the last), with the fill
    /// moved on: for tests, which hold a fill there, write beside it, or make it fail.
    public var betweenBatches: (@Sendable (QueryableFill) async throws -> Void)? {
        get { state.withLock { $0.betweenBatches } }
        set { state.withLock { $0.betweenBatches = newValue } }
    }

    /// Waits until `fill`'s fields are queryable: for the fill of the same fields already
    /// running in this process, or else for `fill`, started now in a task of its own that
    /// calls `step` until it returns nil. Throws what the fill threw, or `StillFilling` once
    /// the query has waited `limit` (the fill goes on; nil: no limit, for a caller that is no
    /// request), or `CancellationError` if the query's task is cancelled while it waits.
    public func wait(
        for fill: QueryableFill, waitingAtMost limit: Duration?, step: @escaping @Sendable (QueryableFill) async throws -> QueryableFill?
    ) async throws {
        let (shared, query, starts, deadline) = state.withLock { state in
            state.nextQuery += 1
            if let running = state.running[fill.key] ?? state.running.first(where: { fill.key.isPart(of: $0.key) })?.value {
                return (running, state.nextQuery, false, state.deadline)
            }
            let run = Run()
            state.running[fill.key] = run
            state.started += 1
            return (run, state.nextQuery, true, state.deadline)
        }
        if starts {
            Task.detached { await self.run(fill, shared, step: step) }
        }
        let timer = limit.map { limit in
            Task.detached {
                await deadline(limit)
                if !Task.isCancelled { shared.answer(query, .pastDeadline) }
            }
        }
        defer { timer?.cancel() }
        let outcome = await withTaskCancellationHandler {
            await shared.outcome(of: query)
        } onCancel: {
            shared.answer(query, .cancelled)
        }
        switch outcome {
        case .done(let result): try result.get()
        case .pastDeadline: throw StillFilling(recordType: fill.recordType, fieldNames: fill.fieldNames)
        case .cancelled: throw CancellationError()
        }
    }

    /// Runs `fill` to its end (or its first error) and tells its queries.
    private func run(_ fill: QueryableFill, _ run: Run, step: @Sendable (QueryableFill) async throws -> QueryableFill?) async {
        var current = fill
        let result: Result<Void, any Error>
        do {
            while let next = try await step(current) {
                current = next
                try await betweenBatches?(next)
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        // Out of the running first: a query from now on starts a fill again (after a failure)
        // or finds the fields ready.
        state.withLock { state in
            if state.running[fill.key] === run { state.running[fill.key] = nil }
        }
        run.finish(result)
    }
}

extension RecordZoneStore {
    /// Makes `fieldNames` of `recordType` queryable in `account` (`QueryableFields`): marks
    /// them, and if they are not ready waits for their fill (`QueryableFills.wait`), which
    /// moves on through `fillQueryable` a batch at a time. Once this returns, every record of
    /// the type has the keys of those fields, and every save keeps them. Throws
    /// `QueryableFields.LimitReached` past the bound on marks, and `QueryableFills.StillFilling`
    /// once it has waited `limit` for the fill: a request's deadline (`QueryableFills.waitLimit`,
    /// which the web services give), none for a caller that is no request.
    public func makeQueryable(_ fieldNames: Set<String>, of recordType: String, account: String, waitingAtMost limit: Duration? = nil) async throws {
        guard !fieldNames.isEmpty, let fill = try await markQueryable(fieldNames, of: recordType, account: account) else { return }
        try await queryableFills.wait(for: fill, waitingAtMost: limit) { [self] fill in try await fillQueryable(fill) }
    }
}
