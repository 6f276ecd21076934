import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxCommandLine
import IdeaModel
import IdeaSync

extension IdeaBoxCommand {
    /// `ideabox remote …`: the simulated network and faults of this profile's device.
    struct Remote: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote", abstract: .english("Control the simulated remote for this profile: network, latency, errors, quota.", chinese: "控制這個設定檔的模擬遠端：網路、延遲、錯誤、配額。"),
            subcommands: [Offline.self, Status.self, Latency.self, Fault.self, Quota.self])
    }
}

extension IdeaBoxCommand.Remote {
    /// `ideabox remote offline on|off`
    struct Offline: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "offline", abstract: .english("Airplane mode for this profile: `on` cuts its network, `off` brings it back.", chinese: "這個設定檔的飛航模式：`on` 切斷網路，`off` 恢復網路。"))

        @Argument(help: .english("on: no network; off: network back.", chinese: "on：沒有網路；off：恢復網路。")) var setting: OnOff
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            try remote.network.setOffline(setting == .on, device: remote.device)
            print(CommandLineText.offline(setting == .on, device: remote.device, context.language))
        }
    }

    /// `ideabox remote status [--json]`
    struct Status: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: .english("Show this profile's account, network, latency, faults and quota.", chinese: "顯示這個設定檔的帳號、網路、延遲、故障與配額。"))

        @Flag(help: .english("Print JSON.", chinese: "印出 JSON。")) var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            let remote = try context.openRemote(store)
            let report = RemoteStatusReport(status: try remote.deviceStatus(), endpoint: remote.endpoint, usage: await remote.servedUsage())
            if json {
                print(try Output.json(RemoteStatusOutput(report, context.language)))
            } else {
                print(CommandLineText.remoteStatusLines(report, context.language).joined(separator: "\n"))
            }
        }
    }

    /// `ideabox remote latency MS`
    struct Latency: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "latency", abstract: .english("Add latency to each of this profile's requests.", chinese: "為這個設定檔的每個請求加上延遲。"))

        @Argument(help: .english("Milliseconds, 0 to 60000; 0 removes it.", chinese: "毫秒，0 到 60000；0 表示移除。")) var milliseconds: Int
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard (0...60_000).contains(milliseconds) else {
                throw ValidationError("Latency must be 0 to 60000 ms, not \(milliseconds).")
            }
        }

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            try remote.network.setLatency(milliseconds: milliseconds, device: remote.device)
            print(CommandLineText.latency(milliseconds, device: remote.device, context.language))
        }
    }

    /// `ideabox remote fault add | script | clear`
    struct Fault: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fault", abstract: .english("Make this profile's requests fail: at random, by script, or no more.", chinese: "讓這個設定檔的請求失敗：隨機、依腳本，或不再失敗。"),
            subcommands: [Add.self, Script.self, Clear.self])
    }

    /// `ideabox remote quota N|off`
    struct Quota: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "quota", abstract: .english("Limit the records of the account this profile is signed in to.", chinese: "限制這個設定檔登入的帳號可保存的紀錄數。"))

        @Argument(help: .english("The most records the account may hold, or `off`.", chinese: "帳號最多可保存的紀錄數，或 `off`。")) var limit: String
        @OptionGroup var store: StoreOptions

        func validate() throws {
            _ = try QuotaLimit.maxRecords(limit)
        }

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            if let credentials = remote.credentials {
                throw FullCommandError.quotaIsTheServers(account: credentials.account)
            }
            guard let embedded = remote.embedded, let account = try remote.network.signedInAccount(device: remote.device) else {
                throw FullCommandError.quotaNeedsAccount(device: remote.device)
            }
            let maxRecords = try QuotaLimit.maxRecords(limit)
            try embedded.store.setQuota(maxRecords: maxRecords, account: account)
            print(CommandLineText.quota(maxRecords, account: account, context.language))
        }
    }
}

extension IdeaBoxCommand.Remote.Fault {
    /// `ideabox remote fault add CODE [--rate P] [--retry-after S] [--operation OP]`
    struct Add: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: .english("Fail a share of this profile's requests with an error, at random.", chinese: "讓這個設定檔一部分的請求隨機以某個錯誤失敗。"))

        @Argument(help: .english("The error, by its CloudError code name, such as serviceUnavailable.", chinese: "錯誤，以 CloudError 的代碼名稱表示，例如 serviceUnavailable。")) var code: String
        @Option(help: .english("The chance a request fails, more than 0 and at most 1.", chinese: "請求失敗的機率，大於 0 且最多 1。")) var rate = 1.0
        @Option(name: .customLong("retry-after"), help: ArgumentHelp(
            .english("Seconds the error asks to wait (zoneBusy, requestRateLimited, serviceUnavailable, serverDatabaseUnavailable).", chinese: "錯誤要求等待的秒數（zoneBusy、requestRateLimited、serviceUnavailable、serverDatabaseUnavailable）。"), valueName: "seconds"))
        var retryAfter: Double?
        @Option(help: ArgumentHelp(.english("Only this kind of request: \(FaultArguments.operationNames(separator: ", ")).", chinese: "只限這種請求：\(FaultArguments.operationNames(separator: "、"))。"), valueName: "op"))
        var operation: String?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard rate > 0 && rate <= 1 else { throw ValidationError("--rate must be more than 0 and at most 1, such as 0.25.") }
            _ = try FaultArguments.error(code, retryAfter: retryAfter)
            _ = try FaultArguments.operation(operation)
        }

        func run(in context: CommandContext) throws {
            let fault = ErrorRate(
                probability: rate, error: try FaultArguments.error(code, retryAfter: retryAfter),
                operation: try FaultArguments.operation(operation))
            let remote = try context.openRemote(store)
            try remote.network.addErrorRate(fault, device: remote.device)
            print(CommandLineText.faultAdded(fault, device: remote.device, context.language))
        }
    }

    /// `ideabox remote fault script CODE... [--operation OP]`
    struct Script: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "script", abstract: .english("Fail this profile's next requests with these errors, one each, in order.", chinese: "讓這個設定檔接下來的請求依序各以這些錯誤失敗。"))

        @Argument(help: .english("Error code names, such as serviceUnavailable internalError.", chinese: "錯誤代碼名稱，例如 serviceUnavailable internalError。")) var codes: [String]
        @Option(help: ArgumentHelp(.english("Only this kind of request: \(FaultArguments.operationNames(separator: ", ")).", chinese: "只限這種請求：\(FaultArguments.operationNames(separator: "、"))。"), valueName: "op"))
        var operation: String?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard !codes.isEmpty else {
                throw ValidationError("Name at least one error code: \(FaultArguments.codeNames).")
            }
            _ = try errors()
        }

        func run(in context: CommandContext) throws {
            let errors = try errors()
            let remote = try context.openRemote(store)
            try remote.network.scriptErrors(errors, device: remote.device)
            print(CommandLineText.faultsScripted(errors, device: remote.device, context.language))
        }

        private func errors() throws -> [ScriptedError] {
            let operation = try FaultArguments.operation(operation)
            return try codes.map { ScriptedError(try FaultArguments.error($0, retryAfter: nil), operation: operation) }
        }
    }

    /// `ideabox remote fault clear`
    struct Clear: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: .english("Remove this profile's random and scripted errors (the network and latency stay as set).", chinese: "移除這個設定檔的隨機與腳本錯誤（網路與延遲維持原設定）。"))

        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            try remote.network.clearErrorRates(device: remote.device)
            try remote.network.clearScriptedErrors(device: remote.device)
            print(CommandLineText.faultsCleared(device: remote.device, context.language))
        }
    }
}

/// `on` or `off`.
enum OnOff: String, ExpressibleByArgument, CaseIterable {
    case on, off
}

/// Reading fault arguments: error codes and request kinds by name, ignoring case.
private enum FaultArguments {
    static let codeNames = CloudError.Code.allCases.map(\.rawValue).joined(separator: ", ")
    static func operationNames(separator: String) -> String { CloudOperation.allCases.map(\.rawValue).joined(separator: separator) }
    static let codesWithRetryAfter: [CloudError.Code] = [.zoneBusy, .requestRateLimited, .serviceUnavailable, .serverDatabaseUnavailable]

    static func error(_ name: String, retryAfter: Double?) throws -> CloudError {
        guard let code = CloudError.Code.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw ValidationError("Unknown error code \"\(name)\"; use one of: \(codeNames).")
        }
        if let retryAfter {
            guard codesWithRetryAfter.contains(code) else {
                throw ValidationError(
                    "--retry-after only goes with \(codesWithRetryAfter.map(\.rawValue).joined(separator: ", ")).")
            }
            guard retryAfter >= 0 && retryAfter.isFinite else {
                throw ValidationError("--retry-after must be 0 or more seconds.")
            }
        }
        return CloudError(code: code, retryAfter: retryAfter)
    }

    static func operation(_ name: String?) throws -> CloudOperation? {
        guard let name else { return nil }
        guard let operation = CloudOperation.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw ValidationError("Unknown operation \"\(name)\"; use one of: \(operationNames(separator: ", ")).")
        }
        return operation
    }
}

/// `remote status --json`: faults by code name rather than the remote's stored form.
/// What `remote status` tells: the device's faults, the remote its requests reach, and what
/// that remote holds of its account (for a server, what the server says, or why it could not
/// be asked).
struct RemoteStatusReport {
    var status: RemoteDeviceStatus
    var endpoint: RemoteEndpoint
    /// A server's answer for the account; nil for the embedded remote (`status` has its counts).
    var usage: Result<ServedAccountUsage, CloudError>?

    /// The most records the account may hold, or nil for no limit or not known.
    var quota: Int? {
        switch usage {
        case nil: status.quota
        case .success(let usage)?: usage.maxRecords
        case .failure?: nil
        }
    }

    /// The records the account holds, or nil if the server could not be asked.
    var recordCount: Int? {
        switch usage {
        case nil: status.recordCount
        case .success(let usage)?: usage.records
        case .failure?: nil
        }
    }
}

/// What `remote status --json` prints: every key always there, `null` where it does not apply.
private struct RemoteStatusOutput: Encodable {
    struct Fault: Encodable {
        var code: String
        var retryAfter: Double?
        var operation: String?
        var probability: Double?

        enum CodingKeys: String, CodingKey { case code, retryAfter, operation, probability }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(retryAfter, forKey: .retryAfter)
            try container.encode(operation, forKey: .operation)
            if let probability { try container.encode(probability, forKey: .probability) }
        }
    }

    var report: RemoteStatusReport
    var language: Language

    init(_ report: RemoteStatusReport, _ language: Language) {
        self.report = report
        self.language = language
    }

    enum CodingKeys: String, CodingKey {
        case device, remote, server, container, environment, account, isOffline, latencyMilliseconds, errorRates, scriptedErrors
        case quota, recordCount, usage, usageError
    }

    func encode(to encoder: any Encoder) throws {
        let status = report.status
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status.device, forKey: .device)
        try container.encode(report.endpoint.kind, forKey: .remote)
        try container.encode(report.endpoint.server, forKey: .server)
        try container.encode(report.endpoint.container, forKey: .container)
        try container.encode(report.endpoint.environment, forKey: .environment)
        try container.encode(status.account, forKey: .account)
        try container.encode(status.isOffline, forKey: .isOffline)
        try container.encode(status.latencyMilliseconds, forKey: .latencyMilliseconds)
        try container.encode(
            status.errorRates.map {
                Fault(code: $0.error.code.rawValue, retryAfter: $0.error.retryAfter, operation: $0.operation?.rawValue,
                      probability: $0.probability)
            },
            forKey: .errorRates)
        try container.encode(
            status.scriptedErrors.map {
                Fault(code: $0.error.code.rawValue, retryAfter: $0.error.retryAfter, operation: $0.operation?.rawValue)
            },
            forKey: .scriptedErrors)
        try container.encode(report.quota, forKey: .quota)
        try container.encode(report.recordCount, forKey: .recordCount)
        switch report.usage {
        case .success(let usage)?:
            try container.encode(usage, forKey: .usage)
            try container.encodeNil(forKey: .usageError)
        case .failure(let error)?:
            try container.encodeNil(forKey: .usage)
            try container.encode(error.reason(in: language), forKey: .usageError)
        case nil:
            try container.encodeNil(forKey: .usage)
            try container.encodeNil(forKey: .usageError)
        }
    }
}
