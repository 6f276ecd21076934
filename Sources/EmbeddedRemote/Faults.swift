import CloudKitModel

/// The faults one request goes out with.
struct Faults {
    /// How long the request takes to reach the server.
    var latencyMilliseconds: Int
    /// The scripted error this request consumed, if any.
    var scriptedError: ScriptedError?
    /// The random faults that may fail it.
    var errorRates: [ErrorRate]

    /// Waits the latency, then fails with the scripted error or a random one if any applies
    /// (after doing `work` if the scripted error only loses the answer), or does `work`.
    func apply<Result>(sleeper: Sleeper, random: SharedRandom, _ work: () async throws -> Result) async throws -> Result {
        if latencyMilliseconds > 0 { await sleeper.sleep(milliseconds: latencyMilliseconds) }
        if let scriptedError {
            if scriptedError.failsAfterApplying { _ = try await work() }
            throw scriptedError.error
        }
        for rate in errorRates where random.nextUnitInterval() < rate.probability {
            throw rate.error
        }
        return try await work()
    }
}

/// What the device and the faults decided about one request.
enum Admission {
    /// The request fails on the device without reaching the server.
    case refused(CloudError)
    /// The request goes out to `account` with these faults.
    case admitted(account: String, faults: Faults)
}
