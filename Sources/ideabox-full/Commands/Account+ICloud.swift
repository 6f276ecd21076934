import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxCommandLine
import IdeaBoxConfig
import IdeaBoxFoundation
import IdeaModel

extension IdeaBoxCommand.Account.SignIn {
    /// `account sign-in --icloud`: signs this profile in to the person's iCloud, where the
    /// IdeaBox app keeps its ideas, through Apple's own sign-in (`docs/icloud-digest.md` §3).
    /// The container's API token comes from `--api-token`, `IDEABOX_ICLOUD_API_TOKEN` or the
    /// config file's `icloud-api-token`. Without `--token`, a request with the API token alone
    /// answers `AUTHENTICATION_REQUIRED` with Apple's sign-in page; the command prints it (and
    /// opens it where a display is there), and takes the web auth token from whichever comes
    /// first: the browser sent back to the sign-in callback on 127.0.0.1, or the token (or the
    /// whole callback address) pasted on standard input. One request (`users/current`) checks
    /// the token and names the account; only then is it kept, 0600, in server.json.
    /// Returns the account: the person's user record name.
    func signInToICloud(in context: CommandContext) async throws -> String {
        let variables = context.environment
        guard let server = ICloudEndpoint.url(in: variables) else { throw FullCommandError.iCloudURLInvalid }
        guard let apiToken = apiToken ?? variables[ICloudEndpoint.apiTokenVariable].flatMap({ $0.isEmpty ? nil : $0 })
            ?? ConfigFile.load(environment: variables).config.iCloudAPIToken
        else { throw FullCommandError.iCloudAPITokenNeeded }
        guard WebServicesPath.isValidAPIToken(apiToken) else { throw FullCommandError.iCloudAPITokenInvalid }
        var credentials = ServerCredentials(
            server: server, account: "", token: nil, container: ProductContainer.id, apiToken: apiToken)
        credentials.environment = environment
        credentials.isICloud = true

        let webToken: String
        if let token {
            guard let pasted = ICloudSignIn.token(fromPasted: token) else { throw FullCommandError.iCloudTokenInvalid }
            webToken = pasted
        } else {
            webToken = try await ICloudSignIn.tokenFromPerson(
                credentials: credentials, callbackPort: callbackPort, variables: variables, language: context.language)
        }

        // One request with the token: who signed in. Apple may hand out the next token with
        // its answer; the last one is what is kept.
        let latest = Locked(webToken)
        credentials.token = webToken
        let database = credentials.database(unnamedContainer: ProductContainer.id, onNewToken: { _, new in latest.withLock { $0 = new } })
        do {
            credentials.account = try await database.currentUserRecordName()
        } catch let error as CloudError {
            throw FullCommandError.iCloudSignInRefused(error)
        }
        credentials.token = latest.value
        try credentials.save(to: try context.location(store).profileDirectory)
        print(ICloudText.signedIn(environment: environment, server: server, context.language))
        return credentials.account
    }
}

/// The person's part of an iCloud sign-in.
enum ICloudSignIn {
    /// The web auth token a person pasted: the token itself, or the callback's whole address
    /// (`http://127.0.0.1:8424/?ckWebAuthToken=…`, from a browser on another machine); nil if
    /// it holds none.
    static func token(fromPasted text: String) -> String? {
        let line = text.trimmingCharacters(in: .whitespaces)
        if let query = line.split(separator: "?", maxSplits: 1).dropFirst().first, line.contains("ckWebAuthToken=") {
            return WebAuthCallback.token(inQuery: String(query))
        }
        return WebAuthToken.isToken(line) ? line : nil
    }

    /// Asks Apple for its sign-in page, shows it, and waits for the token: from the browser
    /// at the callback, or pasted. The callback listens before the page is shown, so a port in
    /// use fails first.
    static func tokenFromPerson(
        credentials: ServerCredentials, callbackPort: Int, variables: [String: String], language: Language
    ) async throws -> String {
        let callback: WebAuthCallback
        do {
            callback = try await WebAuthCallback.listen(port: callbackPort)
        } catch {
            throw FullCommandError.iCloudCallbackPortInUse(port: callbackPort)
        }
        defer { Task { await callback.close() } }
        let page: URL
        do {
            page = try await credentials.database(unnamedContainer: ProductContainer.id).signInPage()
        } catch let error as CloudError {
            throw FullCommandError.iCloudSignInRefused(error == .notAuthenticated ? .tokenRefused : error)
        }
        // Written at once, not when the buffer of a pipe fills: a script may wait on it.
        FileHandle.standardOutput.write(Data((ICloudText.openPage(page, port: callback.port, language) + "\n").utf8))
        let hasDisplay = ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(variables[$0] ?? "").isEmpty }
        if hasDisplay { _ = LinkOpener.open(page.absoluteString, environment: variables) }

        // Whichever comes first; the other is left waiting (a read of a terminal cannot be
        // taken back), and ends with the process.
        let (tokens, arrived) = AsyncStream.makeStream(of: String.self)
        Task {
            arrived.yield(await callback.token())
        }
        Task {
            while let line = await StandardInput.line() {
                if let token = token(fromPasted: line) {
                    arrived.yield(token)
                    return
                }
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { print(ICloudText.notAToken(language)) }
            }
        }
        for await token in tokens { return token }
        throw CancellationError()
    }
}

/// The iCloud sign-in's own words.
enum ICloudText {
    /// Where to sign in.
    static func openPage(_ page: URL, port: Int, _ language: Language) -> String {
        switch language {
        case .english:
            """
            Sign in to iCloud in a browser:
              \(page.absoluteString)
            Waiting for the browser to come back to http://127.0.0.1:\(port)/ …
            On a machine without a browser, open the page elsewhere and paste the address it ends on
            (or the ckWebAuthToken in it) here, then press Enter.
            """
        case .traditionalChinese:
            """
            請在瀏覽器中登入 iCloud：
              \(page.absoluteString)
            正在等待瀏覽器回到 http://127.0.0.1:\(port)/ …
            若這台機器沒有瀏覽器，請在別處開啟這個頁面，把最後停留的網址（或其中的 ckWebAuthToken）貼到這裡，再按 Enter。
            """
        }
    }

    /// A pasted line that holds no token.
    static func notAToken(_ language: Language) -> String {
        language == .english
            ? "That is not a token; paste the address the sign-in ended on, or its ckWebAuthToken."
            : "這不是權杖；請貼上登入最後停留的網址，或其中的 ckWebAuthToken。"
    }

    /// `account status` on iCloud: the account is the person's user record name.
    static func accountStatus(_ account: String?, environment: String, _ language: Language) -> String {
        switch (language, account) {
        case let (.english, account?): "Signed in to iCloud (\(environment)) as \(account)."
        case (.english, nil): "Signed out of iCloud; ideas stay on this device. Sign in again: ideabox account sign-in --icloud"
        case let (.traditionalChinese, account?): "已登入 iCloud（\(environment)），帳號 \(account)"
        case (.traditionalChinese, nil): "已登出 iCloud；靈感只保存在這台裝置。重新登入：ideabox account sign-in --icloud"
        }
    }

    /// Signed in.
    static func signedIn(environment: String, server: URL, _ language: Language) -> String {
        let at = server == ICloudEndpoint.apple ? "" : " (" + server.absoluteString + ")"
        return language == .english
            ? "Signed in to iCloud (\(environment))\(at): this profile syncs with the IdeaBox app's ideas."
            : "已登入 iCloud（\(environment)）\(at)：這個設定檔與 IdeaBox app 的靈感同步。"
    }
}
