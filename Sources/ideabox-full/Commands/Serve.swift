import ArgumentParser
import CloudServer
import CloudWebServices
import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaStore
import Logging
import PostgresRecordStore
import SQLiteRecordStore
import ServerStore

extension IdeaBoxCommand {
    /// `ideabox serve [--listen HOST:PORT] [--store sqlite:PATH | --store postgres://…]`, and `serve account …`.
    struct Serve: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "serve",
            abstract: .english("Serve the remote over HTTP or HTTPS in CloudKit Web Services' JSON, for devices on other machines.", chinese: "以 CloudKit Web Services 的 JSON 經 HTTP 或 HTTPS 提供遠端，給其他機器上的裝置使用。"),
            discussion: .english("""
                Devices sign in with `ideabox account sign-in NAME --server URL` and the token that \
                `ideabox serve account add NAME` printed. Each request is logged on standard error (method, path, \
                status, milliseconds, account; never a token). SIGINT or SIGTERM stops the server after the \
                requests in flight finish, or --shutdown-timeout passes. Other CloudKit Web Services clients send the \
                account's token as ckWebAuthToken with an API token from `ideabox serve api-token add` as ckAPIToken. \
                Across machines, serve HTTPS (--tls-cert, --tls-key) or put it behind a proxy that does.
                """, chinese: "裝置以 `ideabox account sign-in NAME --server URL` 和 `ideabox serve account add NAME` 印出的權杖登入。每個請求都記錄在標準錯誤（方法、路徑、狀態、毫秒、帳號；從不記錄權杖）。SIGINT 或 SIGTERM 會在進行中的請求完成或超過 --shutdown-timeout 後停止伺服器。其他 CloudKit Web Services 用戶端以 ckWebAuthToken 送出帳號的權杖，並以 ckAPIToken 送出 `ideabox serve api-token add` 產生的 API 權杖。跨機器時請提供 HTTPS（--tls-cert、--tls-key），或放在會處理 HTTPS 的代理之後。"),
            subcommands: [Account.self, APIToken.self])

        @Option(help: ArgumentHelp(.english("The address and port to listen on (default: $IDEABOX_SERVE_LISTEN or \(ServerDefaults.listen)).", chinese: "要監聽的位址與連接埠（預設：$IDEABOX_SERVE_LISTEN 或 \(ServerDefaults.listen)）。"), valueName: "host:port"))
        var listen: String?
        @Option(
            name: .customLong("container"),
            help: ArgumentHelp(
                .english("A container to serve (repeatable; default \(ProductContainer.id)). Each has its own data; the first holds what earlier servers stored.", chinese: "要提供的容器（可重複；預設 \(ProductContainer.id)）。每個容器有自己的資料；第一個保存先前伺服器存下的資料。"),
                valueName: "id"))
        var containers: [String] = []
        @Option(
            name: .customLong("tls-cert"),
            help: ArgumentHelp(.english("Serve HTTPS with this certificate chain (PEM, the server's first; also $IDEABOX_SERVE_TLS_CERT).", chinese: "以這個憑證鏈提供 HTTPS（PEM，伺服器的憑證在最前；也可設 $IDEABOX_SERVE_TLS_CERT）。"), valueName: "file"))
        var certificateFile: String?
        @Option(name: .customLong("tls-key"), help: ArgumentHelp(.english("The private key (PEM) of --tls-cert (also $IDEABOX_SERVE_TLS_KEY).", chinese: "--tls-cert 的私鑰（PEM；也可設 $IDEABOX_SERVE_TLS_KEY）。"), valueName: "file"))
        var keyFile: String?
        @Option(
            name: .customLong("tls-min"),
            help: ArgumentHelp(.english("The oldest TLS version answered: 1.2 or 1.3. (Default: $IDEABOX_SERVE_TLS_MIN or 1.2.)", chinese: "接受的最舊 TLS 版本：1.2 或 1.3。（預設：$IDEABOX_SERVE_TLS_MIN 或 1.2。）"), valueName: "1.2|1.3"))
        var tlsMinimum: String?
        @Option(
            name: .customLong("idle-timeout"),
            help: ArgumentHelp(
                .english("Close a connection that sends nothing for this many seconds: idle between requests, or a header or body that stalls. A held long poll is not idle. (Default: $IDEABOX_SERVE_IDLE_TIMEOUT or \(ServerDefaults.idleTimeoutSeconds).)", chinese: "關閉這麼多秒沒有送出任何東西的連線：請求之間閒置，或標頭、內容停滯。保持中的長輪詢不算閒置。（預設：$IDEABOX_SERVE_IDLE_TIMEOUT 或 \(ServerDefaults.idleTimeoutSeconds)。）"),
                valueName: "seconds"))
        var idleTimeout: Int?
        @Option(
            name: .customLong("shutdown-timeout"),
            help: ArgumentHelp(
                .english("On SIGTERM or SIGINT, let requests in flight finish for up to this many seconds, then close them. (Default: $IDEABOX_SERVE_SHUTDOWN_TIMEOUT or \(ServerDefaults.shutdownTimeoutSeconds).)", chinese: "收到 SIGTERM 或 SIGINT 時，讓進行中的請求最多再進行這麼多秒，然後關閉。（預設：$IDEABOX_SERVE_SHUTDOWN_TIMEOUT 或 \(ServerDefaults.shutdownTimeoutSeconds)。）"),
                valueName: "seconds"))
        var shutdownTimeout: Int?
        @Option(
            name: .customLong("max-uploads"),
            help: ArgumentHelp(
                .english("Receive at most this many asset uploads at once; more are asked to try again. (Default: $IDEABOX_SERVE_MAX_UPLOADS or \(ServerDefaults.maximumUploads).)", chinese: "同時最多接收這麼多個檔案上傳；更多的會被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_UPLOADS 或 \(ServerDefaults.maximumUploads)。）"),
                valueName: "count"))
        var maxUploads: Int?
        @Option(
            name: .customLong("max-polls-per-account"),
            help: ArgumentHelp(
                .english("Hold at most this many long polls of one account; past it its oldest is answered at once. (Default: $IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT or \(FairShareLimits.defaults.pollsPerAccount).)", chinese: "每個帳號最多保持這麼多個長輪詢；超過時，最舊的一個會立即得到回應。（預設：$IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT 或 \(FairShareLimits.defaults.pollsPerAccount)。）"),
                valueName: "count"))
        var maxPollsPerAccount: Int?
        @Option(
            name: .customLong("max-polls-per-token"),
            help: ArgumentHelp(
                .english("Hold at most this many long polls of one access token (one device). (Default: $IDEABOX_SERVE_MAX_POLLS_PER_TOKEN or \(FairShareLimits.defaults.pollsPerToken).)", chinese: "每個存取權杖（一台裝置）最多保持這麼多個長輪詢。（預設：$IDEABOX_SERVE_MAX_POLLS_PER_TOKEN 或 \(FairShareLimits.defaults.pollsPerToken)。）"),
                valueName: "count"))
        var maxPollsPerToken: Int?
        @Option(
            name: .customLong("max-bodies-per-account"),
            help: ArgumentHelp(
                .english("Receive at most this many request bodies of one account at once; more are asked to try again. (Default: $IDEABOX_SERVE_MAX_BODIES_PER_ACCOUNT or \(FairShareLimits.defaults.bodiesPerAccount).)", chinese: "每個帳號同時最多接收這麼多個請求內容；更多的會被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_BODIES_PER_ACCOUNT 或 \(FairShareLimits.defaults.bodiesPerAccount)。）"),
                valueName: "count"))
        var maxBodiesPerAccount: Int?
        @Option(
            name: .customLong("max-uploads-per-account"),
            help: ArgumentHelp(
                .english("Receive at most this many asset uploads of one account at once; more are asked to try again. (Default: $IDEABOX_SERVE_MAX_UPLOADS_PER_ACCOUNT or \(FairShareLimits.defaults.uploadsPerAccount).)", chinese: "每個帳號同時最多接收這麼多個檔案上傳；更多的會被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_UPLOADS_PER_ACCOUNT 或 \(FairShareLimits.defaults.uploadsPerAccount)。）"),
                valueName: "count"))
        var maxUploadsPerAccount: Int?
        @Option(
            name: .customLong("max-answers-per-account"),
            help: ArgumentHelp(
                .english("Write at most this many answers of records (query, lookup, changes) of one account at once; more wait their turn a little, then are asked to try again. (Default: $IDEABOX_SERVE_MAX_ANSWERS_PER_ACCOUNT or \(FairShareLimits.defaults.answersPerAccount).)", chinese: "每個帳號同時最多寫出這麼多個紀錄回應（查詢、查找、變更）；更多的會稍候輪到它們，之後被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_ANSWERS_PER_ACCOUNT 或 \(FairShareLimits.defaults.answersPerAccount)。）"),
                valueName: "count"))
        var maxAnswersPerAccount: Int?
        @Option(
            name: .customLong("log-format"),
            help: ArgumentHelp(
                .english("How lines are logged on standard error: text, for a person, or json, one object a line for a log collector. (Default: $IDEABOX_SERVE_LOG_FORMAT or text.)", chinese: "標準錯誤上的記錄格式：text 給人看，或 json，每行一個物件給記錄收集器。（預設：$IDEABOX_SERVE_LOG_FORMAT 或 text。）"),
                valueName: "text|json"))
        var logFormat: String?
        @Option(
            name: .customLong("tombstone-retention-days"),
            help: ArgumentHelp(
                .english("Remember a deleted record this many days, for devices that have not synced since, then forget it; until then it counts against its account's record quota. (Default: $IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS or \(ServerDefaults.tombstoneRetentionDays).)", chinese: "已刪除的紀錄保留這麼多天，給之後還沒同步的裝置，然後忘記；在那之前它計入帳號的紀錄配額。（預設：$IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS 或 \(ServerDefaults.tombstoneRetentionDays)。）"),
                valueName: "days"))
        var tombstoneRetentionDays: Int?
        @OptionGroup var storeOptions: ServeStoreOptions

        /// The settings as given by flags, else by `IDEABOX_SERVE_*` variables, else by default.
        var settings: Settings {
            get throws {
                let environment = ServeEnvironment()
                let settings = Settings(
                    listen: try ListenAddress(listen ?? environment["LISTEN"] ?? ServerDefaults.listen),
                    certificateFile: certificateFile ?? environment["TLS_CERT"], keyFile: keyFile ?? environment["TLS_KEY"],
                    tlsMinimum: try Self.tlsMinimum(tlsMinimum ?? environment["TLS_MIN"] ?? "1.2"),
                    idleTimeout: try idleTimeout ?? environment.seconds("IDEABOX_SERVE_IDLE_TIMEOUT", "IDLE_TIMEOUT") ?? ServerDefaults.idleTimeoutSeconds,
                    shutdownTimeout: try shutdownTimeout ?? environment.seconds("IDEABOX_SERVE_SHUTDOWN_TIMEOUT", "SHUTDOWN_TIMEOUT") ?? ServerDefaults.shutdownTimeoutSeconds,
                    maxUploads: try maxUploads ?? environment.wholeNumber("IDEABOX_SERVE_MAX_UPLOADS", "MAX_UPLOADS", of: "uploads") ?? ServerDefaults.maximumUploads,
                    fairShares: FairShareLimits(
                        pollsPerAccount: try maxPollsPerAccount
                            ?? environment.wholeNumber("IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT", "MAX_POLLS_PER_ACCOUNT", of: "polls")
                            ?? FairShareLimits.defaults.pollsPerAccount,
                        pollsPerToken: try maxPollsPerToken
                            ?? environment.wholeNumber("IDEABOX_SERVE_MAX_POLLS_PER_TOKEN", "MAX_POLLS_PER_TOKEN", of: "polls")
                            ?? FairShareLimits.defaults.pollsPerToken,
                        bodiesPerAccount: try maxBodiesPerAccount
                            ?? environment.wholeNumber("IDEABOX_SERVE_MAX_BODIES_PER_ACCOUNT", "MAX_BODIES_PER_ACCOUNT", of: "bodies")
                            ?? FairShareLimits.defaults.bodiesPerAccount,
                        uploadsPerAccount: try maxUploadsPerAccount
                            ?? environment.wholeNumber("IDEABOX_SERVE_MAX_UPLOADS_PER_ACCOUNT", "MAX_UPLOADS_PER_ACCOUNT", of: "uploads")
                            ?? FairShareLimits.defaults.uploadsPerAccount,
                        answersPerAccount: try maxAnswersPerAccount
                            ?? environment.wholeNumber("IDEABOX_SERVE_MAX_ANSWERS_PER_ACCOUNT", "MAX_ANSWERS_PER_ACCOUNT", of: "answers")
                            ?? FairShareLimits.defaults.answersPerAccount),
                    logFormat: try Self.logFormat(logFormat ?? environment["LOG_FORMAT"] ?? "text"),
                    tombstoneRetentionDays: try tombstoneRetentionDays
                        ?? environment.wholeNumber("IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS", "TOMBSTONE_RETENTION_DAYS", of: "days")
                        ?? ServerDefaults.tombstoneRetentionDays)
                guard (settings.certificateFile == nil) == (settings.keyFile == nil) else {
                    throw ValidationError("--tls-cert and --tls-key (or IDEABOX_SERVE_TLS_CERT and IDEABOX_SERVE_TLS_KEY) go together.")
                }
                guard (1...3600).contains(settings.idleTimeout), (0...3600).contains(settings.shutdownTimeout) else {
                    throw ValidationError("--idle-timeout is 1 to 3600 seconds and --shutdown-timeout 0 to 3600.")
                }
                guard (1...1000).contains(settings.maxUploads) else { throw ValidationError("--max-uploads is 1 to 1000.") }
                let shares = settings.fairShares
                guard (1...1_000_000).contains(shares.pollsPerAccount), (1...1_000_000).contains(shares.pollsPerToken),
                      (1...1_000_000).contains(shares.bodiesPerAccount), (1...1000).contains(shares.uploadsPerAccount)
                else {
                    throw ValidationError(
                        "--max-polls-per-account, --max-polls-per-token and --max-bodies-per-account are 1 to 1000000, --max-uploads-per-account 1 to 1000.")
                }
                guard (1...1000).contains(shares.answersPerAccount) else {
                    throw ValidationError("--max-answers-per-account (or IDEABOX_SERVE_MAX_ANSWERS_PER_ACCOUNT) is 1 to 1000.")
                }
                guard (1...3650).contains(settings.tombstoneRetentionDays) else {
                    throw ValidationError("--tombstone-retention-days (or IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS) is 1 to 3650 days.")
                }
                return settings
            }
        }

        /// What `serve` runs with.
        struct Settings {
            var listen: ListenAddress
            var certificateFile: String?
            var keyFile: String?
            var tlsMinimum: ServerTLS.MinimumVersion
            var idleTimeout: Int
            var shutdownTimeout: Int
            var maxUploads: Int
            var fairShares: FairShareLimits
            var logFormat: ServeLogHandler.Format
            var tombstoneRetentionDays: Int
        }

        private static func tlsMinimum(_ text: String) throws -> ServerTLS.MinimumVersion {
            guard let version = ServerTLS.MinimumVersion(rawValue: text) else {
                throw ValidationError("--tls-min (or IDEABOX_SERVE_TLS_MIN) is 1.2 or 1.3, not \"\(text)\".")
            }
            return version
        }

        private static func logFormat(_ text: String) throws -> ServeLogHandler.Format {
            guard let format = ServeLogHandler.Format(rawValue: text) else {
                throw ValidationError("--log-format (or IDEABOX_SERVE_LOG_FORMAT) is text or json, not \"\(text)\".")
            }
            return format
        }

        func validate() throws {
            _ = try settings
            if let bad = containers.first(where: { !WebServicesPath.isValidContainer($0) }) {
                throw ValidationError("--container must be a container id such as \(ProductContainer.id), not \"\(bad)\".")
            }
        }

        func run(in context: CommandContext) async throws {
            let settings = try settings
            let address = settings.listen
            let store = try await storeOptions.open(context)
            let served = containers.isEmpty ? [ProductContainer.id] : containers
            var tls: ServerTLS?
            if let certificateFile = settings.certificateFile, let keyFile = settings.keyFile {
                do {
                    tls = try ServerTLS(certificateFile: certificateFile, keyFile: keyFile, minimumVersion: settings.tlsMinimum)
                } catch {
                    throw FullCommandError.serverTLS(error.description)
                }
            }
            // Before the server is made: its connection limit follows the file limit.
            let files = FileLimit.raiseToHardLimit()
            let clock = context.clock
            LoggingSystem.bootstrap { label in ServeLogHandler(label: label, format: settings.logFormat, clock: clock) }
            let logger = Logger(label: "ideabox.serve")
            var server = CloudServer(
                store: store, host: address.host, port: address.port, containers: served, clock: context.clock,
                log: RequestLog(logger: logger), tls: tls)
            server.containerAliases = [ProductContainer.legacy: ProductContainer.id]
            server.idleTimeout = .seconds(settings.idleTimeout)
            server.shutdownTimeout = .seconds(settings.shutdownTimeout)
            server.maximumUploads = settings.maxUploads
            server.fairShares = settings.fairShares
            server.tombstoneRetention = .seconds(settings.tombstoneRetentionDays * 86_400)
            server.uploadFolder = try storeOptions.uploadFolder(context)
            let running: RunningServer
            do {
                running = try await server.start(gracefulShutdownSignals: [.sigterm, .sigint])
            } catch let error as ListenError {
                throw FullCommandError.cannotListen(host: error.host, port: error.port, code: error.code)
            }
            logger.notice(
                "listening on \(server.scheme)://\(address.host):\(running.port) (store \(storeOptions.description(context)); container \(served.joined(separator: ", ")); open files up to \(files))")
            await running.waitUntilStopped()
            logger.notice("stopped")
        }
    }
}

/// Where the server keeps its records and tokens: a SQLite file (the default) or a
/// PostgreSQL database that any number of `serve` processes share.
struct ServeStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(.english(
            """
            sqlite:PATH, the server's SQLite file (default: server/remote.sqlite under the data root), or \
            postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require].
            """, chinese: "sqlite:PATH，伺服器的 SQLite 檔案（預設：資料根目錄下的 server/remote.sqlite），或 postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]。"),
            valueName: "store"))
    var store: String?

    /// `--store`, else `IDEABOX_SERVE_STORE`.
    private var chosenStore: String? { store ?? ServeEnvironment()["STORE"] }

    // The data root, for the default store: the same --data-dir as every command's (a
    // separate declaration would be taken by the root command).
    @OptionGroup var location: StoreOptions

    /// The two kinds of store.
    enum Location {
        case sqlite(URL)
        case postgres(String)
    }

    func validate() throws {
        guard let store = chosenStore else { return }
        let isSQLite = store.hasPrefix("sqlite:") && store.count > "sqlite:".count
        let isPostgres = Self.isPostgres(store)
        guard isSQLite || isPostgres else {
            throw ValidationError("--store must be sqlite:PATH or postgres://USER@HOST/DATABASE, not \"\(store)\".")
        }
    }

    /// Whether `store` is a PostgreSQL URL by its scheme (in any case, as RFC 3986 has it):
    /// `PostgresURL` then reads the rest, and says what is wrong in it.
    private static func isPostgres(_ store: String) -> Bool {
        let scheme = store.prefix { $0 != ":" }.lowercased()
        return (scheme == "postgres" || scheme == "postgresql") && store.dropFirst(scheme.count).hasPrefix("://")
    }

    func location(_ context: CommandContext) throws -> Location {
        if let store = chosenStore, Self.isPostgres(store) { return .postgres(store) }
        if let store = chosenStore { return .sqlite(URL(fileURLWithPath: String(store.dropFirst("sqlite:".count)))) }
        let root = try DataLocation.resolve(dataDirectory: location.dataDirectory, profile: nil, environment: context.environment).root
        return .sqlite(root.appendingPathComponent("server").appendingPathComponent(SQLiteRecordStore.fileName))
    }

    /// Where uploads are spooled as they arrive: `uploads` beside the SQLite file, or under
    /// the data root's `server` folder with PostgreSQL.
    func uploadFolder(_ context: CommandContext) throws -> URL {
        switch try location(context) {
        case let .sqlite(url):
            return url.deletingLastPathComponent().appendingPathComponent("uploads", isDirectory: true)
        case .postgres:
            let root = try DataLocation.resolve(dataDirectory: location.dataDirectory, profile: nil, environment: context.environment).root
            return root.appendingPathComponent("server").appendingPathComponent("uploads", isDirectory: true)
        }
    }

    /// How many calls SQLite's store takes at once: one a core and one more (a write that
    /// waits for the file's one writer leaves the cores to reads), at most its five readers
    /// and its writer. The file is in the page cache, so a call is CPU, and more at once wait
    /// on each other in the reader pool's locks: with six at once on 2 cores, 43 % of the
    /// reads' time went in waking threads, and the server spent a third more CPU or more on
    /// the same 10,000 devices (issue 40).
    static var sqliteCallsAtOnce: Int { min(6, ProcessInfo.processInfo.activeProcessorCount + 1) }

    /// Opens the store (creating the SQLite file or the PostgreSQL tables if needed), which
    /// takes at most 200 operations a request.
    func open(_ context: CommandContext) async throws -> any RecordStore {
        switch try location(context) {
        case let .sqlite(url):
            if context.environment["IDEABOX_SIMULATE_POWER_CUTS"] == "1" { SQLiteRecordStore.simulatePowerCuts() }
            // Its calls block a thread each: past `sqliteCallsAtOnce`, calls wait suspended at
            // the gate, not in the reader pool on a thread (and there a long poll's set-up
            // waits behind the other calls, and the reads of polls that wait are shared).
            return GatedRecordStore(
                try SQLiteRecordStore.open(
                    directory: url.deletingLastPathComponent(), fileName: url.lastPathComponent, clock: context.clock,
                    maximumRecordsPerRequest: WebServicesFormat.maximumOperations),
                limit: Self.sqliteCallsAtOnce)
        case let .postgres(url):
            do {
                let clock = context.clock
                let connections = 16
                let store = try await PostgresRecordStore.connect(url: url, clock: clock, maximumConnections: connections)
                // Past its connections, calls wait at the gate instead of in the pool's queue:
                // there a long poll's set-up waits behind the other calls, and the reads of
                // polls that wait are shared (`StoreGate`, `WaitingReads`).
                return GatedRecordStore(store, limit: connections)
            } catch let error as PostgresStoreError {
                throw FullCommandError.store(error.description)
            }
        }
    }

    /// The store for the log: the SQLite file's path, or the PostgreSQL URL without its password.
    func description(_ context: CommandContext) -> String {
        switch try? location(context) {
        case let .sqlite(url): "sqlite:" + url.path
        case let .postgres(url): (try? PostgresURL(url).withoutPassword) ?? "postgres://?"
        case nil: "?"
        }
    }
}

/// `HOST:PORT`, as `--listen` takes it.
struct ListenAddress {
    var host: String
    var port: Int

    init(_ text: String) throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port), colon != text.startIndex
        else { throw ValidationError("--listen must be HOST:PORT, such as 127.0.0.1:8420, not \"\(text)\".") }
        host = String(text[..<colon])
        self.port = port
    }
}

/// `serve`'s settings from the environment (`IDEABOX_SERVE_LISTEN`, `…_STORE`, `…_TLS_CERT`,
/// `…_TLS_KEY`, `…_IDLE_TIMEOUT`, `…_SHUTDOWN_TIMEOUT`, `…_MAX_UPLOADS`, `…_LOG_FORMAT`,
/// `…_TOMBSTONE_RETENTION_DAYS`), for a service manager's unit; a
/// flag given on the command line wins. An empty variable counts as unset.
struct ServeEnvironment {
    private let values = ProcessInfo.processInfo.environment

    /// `IDEABOX_SERVE_<name>`, if set and not empty.
    subscript(name: String) -> String? {
        values["IDEABOX_SERVE_" + name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `IDEABOX_SERVE_<name>` as whole seconds, if set; an error naming `variable` if it is not a number.
    func seconds(_ variable: String, _ name: String) throws -> Int? {
        try wholeNumber(variable, name, of: "seconds")
    }

    /// The whole number `IDEABOX_SERVE_<name>` holds, if set.
    func wholeNumber(_ variable: String, _ name: String, of unit: String) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let number = Int(text) else { throw ValidationError("\(variable) must be a whole number of \(unit), not \"\(text)\".") }
        return number
    }
}
