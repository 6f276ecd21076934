import CloudWebServices
import Hummingbird
import Synchronization

/// Counts each account's answers of records in flight against its share
/// (`FairShareLimits.answersPerAccount`): a read of records (`records/query`,
/// `records/lookup`, `records/changes`, `changes/zone`) holds one from before the store's
/// first read until its answer's last byte is written (`Response.json` and a lookup's
/// answer are written in pieces, each once the connection takes it, so a client that reads
/// slowly holds its share, not the server's memory). Past the share, as many again wait in
/// the account's line (at most `FairShares.answerPatience`), and one past those is answered
/// `TRY_AGAIN_LATER`: one account's big reads queue behind each other, never another's, and
/// what they hold at once is a few budgets (`PageBudget`) whatever their records hold.
struct AnswerShareMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let shares: FairShares
    /// Counts the answers in flight and those refused; nil in tests that need no figures.
    var metrics: ServerMetrics?
    /// How long a read waits in its account's line for a share before it is refused.
    var patience: Duration = FairShares.answerPatience

    /// The operations whose answers hold records, each as many as a page's budget.
    static let reads: Set<WebServicesPath.Operation> = [.recordsQuery, .recordsLookup, .recordsChanges, .changesZone]

    /// When the read being answered came to its account's line: a query's wait for a fill
    /// (`QueryableFills.waitLimit`) counts from here, so a read that waited in line for a
    /// share is not kept a whole wait longer (ServeFirstQueryTests: 8 queries in line took
    /// 8.6 s against the 5 s deadline). Nil outside a served request (the embedded remote).
    @TaskLocal static var arrived: ContinuousClock.Instant?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let account = context.account, let operation = context.path?.operation, Self.reads.contains(operation) else {
            return try await next(request, context)
        }
        let arrived = ContinuousClock.now
        guard await shares.answers.claim(account, waitingAtMost: patience) else {
            metrics?.answerRefused()
            throw WebServicesError(
                code: "TRY_AGAIN_LATER", reason: "An account reads at most \(shares.limits.answersPerAccount) answers of records at once.",
                retryAfter: 1)
        }
        let held = AnswerShare(account: account, answers: shares.answers, metrics: metrics)
        let response: Response
        do {
            response = try await Self.$arrived.withValue(arrived) { try await next(request, context) }
        } catch {
            held.giveBack()
            throw error
        }
        var answered = response
        let body = response.body
        answered.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { held.giveBack() }
            try await body.write(writer)
        }
        return answered
    }
}

/// One answer's share of its account's (`AnswerShareMiddleware`), given back once: when its
/// body is written, when the request fails, or at the latest when the answer is dropped unwritten
/// (its connection closed before its head went out).
final class AnswerShare: Sendable {
    private let account: String
    private let answers: ShareCounter
    private let metrics: ServerMetrics?
    private let given = Atomic(false)

    init(account: String, answers: ShareCounter, metrics: ServerMetrics?) {
        self.account = account
        self.answers = answers
        self.metrics = metrics
        metrics?.answersInFlightChanged(by: 1)
    }

    deinit {
        giveBack()
    }

    /// Gives the share back, the first time only.
    func giveBack() {
        guard !given.exchange(true, ordering: .relaxed) else { return }
        answers.release(account)
        metrics?.answersInFlightChanged(by: -1)
    }
}
