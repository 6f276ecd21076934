import CloudWebServices
import Hummingbird

/// Checks what a database path names before anything else is read: a container this
/// server serves (`NOT_FOUND`), an environment (`BAD_REQUEST`), the private database
/// (`ACCESS_DENIED`; Apple has `users/current` and `users/discover` in the public one), and a method the
/// operation takes (405). The parsed path goes on in the context.
struct DatabasePathMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The containers served.
    let containers: [String]
    /// Other names of served containers (alias → container).
    let aliases: [String: String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.path = try path(request)
        return try await next(request, context)
    }

    /// The path `request` names, or the error for a path or method that is not served.
    func path(_ request: Request) throws -> WebServicesPath.Parsed {
        guard let path = WebServicesPath.parse(request.uri.path) else { throw WebServicesErrorMiddleware.noSuchEndpoint }
        guard servedContainers.contains(path.container) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "This server serves the containers \(containers.joined(separator: ", ")) only.")
        }
        guard WebServicesPath.environments.contains(path.environment) else {
            throw WebServicesError.badRequest("The environment is production or development.")
        }
        guard path.database == "private" || (path.operation.isPublic && path.database == "public") else {
            throw WebServicesError(code: "ACCESS_DENIED", reason: "Only the private database is served.")
        }
        guard request.method == .post || (request.method == .get && path.operation.takesGet) else {
            throw WebServicesError.methodNotAllowed(path.operation.takesGet ? ["GET", "POST"] : ["POST"])
        }
        return path
    }

    /// The containers paths may name: those given, and the aliases of those.
    private var servedContainers: Set<String> {
        Set(containers).union(aliases.filter { containers.contains($0.value) }.keys)
    }
}
