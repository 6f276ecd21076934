import CloudKitModel
import EmbeddedRemote
import RemoteTestSupport
import Testing

/// Injected faults: offline, latency, scripted and random errors, quotas.
@Suite struct FaultTests {
    @Test("Offline: requests fail with networkUnavailable without reaching the server; other devices are unaffected", arguments: RemoteKind.tested)
    func offline(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        let phone = try fixture.client("phone", createZone: false)
        try fixture.faults.network.setLatency(milliseconds: 50, device: "laptop")
        try fixture.faults.network.setOffline(true, device: "laptop")
        #expect(cloudError { try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys) } == .networkUnavailable)
        #expect(cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) } == .networkUnavailable)
        #expect(fixture.sleeps.milliseconds.isEmpty)
        #expect(try laptop.accountStatus() == .available(accountName: "default"))
        #expect(try phone.records(in: CloudFixture.zone, ofType: "Note").isEmpty)
        try fixture.faults.network.setOffline(false, device: "laptop")
        #expect(try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys).saved.count == 1)
    }

    @Test("Latency: each request that goes out waits through the injected sleeper", arguments: RemoteKind.tested)
    func latency(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        try fixture.faults.network.setLatency(milliseconds: 250, device: "laptop")
        _ = try laptop.records(in: CloudFixture.zone, ofType: "Note")
        try fixture.faults.network.scriptErrors([ScriptedError(.networkFailure)], device: "laptop")
        _ = cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) }
        #expect(fixture.sleeps.milliseconds == [250, 250])
        try fixture.faults.network.setLatency(milliseconds: 0, device: "laptop")
        _ = try laptop.records(in: CloudFixture.zone, ofType: "Note")
        #expect(fixture.sleeps.milliseconds.count == 2)
    }

    @Test("Scripted errors come back in order, one per request, and change nothing", arguments: RemoteKind.tested)
    func script(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        try fixture.faults.network.scriptErrors(
            [ScriptedError(.zoneBusy(retryAfter: 2)), ScriptedError(.internalError), ScriptedError(.serviceUnavailable(retryAfter: nil))],
            device: "laptop")
        let save = { try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys) }
        #expect(cloudError(save) == .zoneBusy(retryAfter: 2))
        #expect(cloudError(save) == .internalError)
        #expect(cloudError(save) == .serviceUnavailable(retryAfter: nil))
        #expect(try await fixture.recordCount() == 0)
        #expect(cloudError(save) == nil)
        #expect(try await fixture.recordCount() == 1)
    }

    @Test("A scripted error for one operation waits for that operation; other requests pass it by", arguments: RemoteKind.tested)
    func scriptForOperation(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        try fixture.faults.network.scriptErrors(
            [ScriptedError(.networkFailure, operation: .modify), ScriptedError(.requestRateLimited(retryAfter: 1))],
            device: "laptop")
        #expect(cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) } == .requestRateLimited(retryAfter: 1))
        #expect(cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) } == nil)
        #expect(try fixture.faults.status(device: "laptop").scriptedErrors == [ScriptedError(.networkFailure, operation: .modify)])
        #expect(cloudError { try laptop.modify(saving: [], deleting: [], savePolicy: .allKeys) } == .networkFailure)
        #expect(try fixture.faults.status(device: "laptop").scriptedErrors.isEmpty)
    }

    @Test("A lost response: the request is carried out, then fails; sent again, it meets its own change", arguments: RemoteKind.tested)
    func lostResponse(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        try fixture.faults.network.scriptErrors([ScriptedError(.networkFailure, operation: .modify, failsAfterApplying: true)], device: "laptop")
        #expect(try fixture.faults.status(device: "laptop").scriptedErrors == [
            ScriptedError(.networkFailure, operation: .modify, failsAfterApplying: true),
        ])
        #expect(cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) } == nil)
        let save = { try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .ifServerRecordUnchanged) }
        #expect(cloudError(save) == .networkFailure)
        #expect(try await fixture.recordCount() == 1)
        let again = try save()
        #expect(again.saved.isEmpty)
        guard case .serverRecordChanged(let server?)? = again.failures[id("a")] else {
            Issue.record("expected the server's copy, got \(again.failures)")
            return
        }
        #expect(server["text"] == .string("text"))
    }

    @Test("Scripts belong to a device, are kept while it is offline, and can be cleared", arguments: RemoteKind.tested)
    func scriptPerDevice(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        let phone = try fixture.client("phone", createZone: false)
        try fixture.faults.network.scriptErrors([ScriptedError(.internalError), ScriptedError(.internalError)], device: "laptop")
        #expect(cloudError { try phone.records(in: CloudFixture.zone, ofType: "Note") } == nil)
        try fixture.faults.network.setOffline(true, device: "laptop")
        #expect(cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } == .networkUnavailable)
        try fixture.faults.network.setOffline(false, device: "laptop")
        #expect(cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } == .internalError)
        try fixture.faults.network.clearScriptedErrors(device: "laptop")
        #expect(cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } == nil)
    }

    @Test("Random errors: the same seed fails the same requests; the rate shows in the status", arguments: RemoteKind.tested)
    func rates(kind: RemoteKind) async throws {
        func outcomes(seed: UInt64) async throws -> [CloudError?] {
            let fixture = try await CloudFixture(kind: kind, seed: seed)
            let laptop = try fixture.client("laptop")
            try fixture.faults.network.addErrorRate(ErrorRate(probability: 0.5, error: .networkFailure), device: "laptop")
            return (0..<40).map { _ in cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } }
        }
        let first = try await outcomes(seed: 42)
        #expect(try await outcomes(seed: 42) == first)
        #expect(try await outcomes(seed: 7) != first)
        let failures = first.compactMap(\.self)
        #expect(Set(failures) == [.networkFailure])
        #expect((10...30).contains(failures.count))
    }

    @Test("Random errors: probability 0 never fails, 1 always does, only for its operation; clearing removes them", arguments: RemoteKind.tested)
    func rateBounds(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        try fixture.faults.network.addErrorRate(ErrorRate(probability: 0, error: .internalError), device: "laptop")
        try fixture.faults.network.addErrorRate(ErrorRate(probability: 1, error: .zoneBusy(retryAfter: 3), operation: .modify), device: "laptop")
        #expect(try fixture.faults.status(device: "laptop").errorRates.count == 2)
        for _ in 0..<10 {
            #expect(cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } == nil)
            #expect(cloudError { try laptop.modify(saving: [], deleting: [], savePolicy: .allKeys) } == .zoneBusy(retryAfter: 3))
        }
        try fixture.faults.network.clearErrorRates(device: "laptop")
        #expect(cloudError { try laptop.modify(saving: [], deleting: [], savePolicy: .allKeys) } == nil)
    }

    @Test(
        "Quota: new records beyond it fail with quotaExceeded; updates and deletes still work, and a deletion frees room once the server forgets it",
        arguments: RemoteKind.tested)
    func quota(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let laptop = try fixture.client("laptop")
        try await fixture.setQuota(maxRecords: 2)
        let first = try laptop.modify(saving: [note("a"), note("b"), note("c")], deleting: [], savePolicy: .allKeys)
        #expect(first.saved.map(\.recordID) == [id("a"), id("b")])
        #expect(first.failures == [id("c"): .quotaExceeded])
        #expect(try laptop.modify(saving: [note("a", "edited")], deleting: [], savePolicy: .allKeys).failures.isEmpty)
        let swap = try laptop.modify(saving: [note("c")], deleting: [id("b")], savePolicy: .allKeys)
        #expect(swap.failures == [id("c"): .quotaExceeded])
        fixture.clock.advance(by: 1)
        #expect(try await fixture.purgeDeletions(before: fixture.clock.now) == 1)
        #expect(try laptop.modify(saving: [note("c")], deleting: [], savePolicy: .allKeys).failures.isEmpty)
        #expect(try await fixture.recordCount() == 2)
        try await fixture.setQuota(maxRecords: nil)
        #expect(try laptop.modify(saving: [note("d")], deleting: [], savePolicy: .allKeys).failures.isEmpty)
    }

    @Test("The status shows every setting of a device")
    func status() async throws {
        let fixture = try await CloudFixture()
        try fixture.cloud.network.signIn(device: "laptop", account: "work")
        try fixture.cloud.network.setOffline(true, device: "laptop")
        try fixture.cloud.network.setLatency(milliseconds: 120, device: "laptop")
        try fixture.cloud.network.addErrorRate(ErrorRate(probability: 0.25, error: .internalError, operation: .fetchChanges), device: "laptop")
        try fixture.cloud.network.scriptErrors([ScriptedError(.quotaExceeded, operation: .modify)], device: "laptop")
        try await fixture.cloud.store.setQuota(maxRecords: 10, account: "work")
        #expect(try fixture.cloud.status(device: "laptop") == RemoteDeviceStatus(
            device: "laptop", account: "work", isOffline: true, latencyMilliseconds: 120,
            errorRates: [ErrorRate(probability: 0.25, error: .internalError, operation: .fetchChanges)],
            scriptedErrors: [ScriptedError(.quotaExceeded, operation: .modify)], quota: 10, recordCount: 0))
        #expect(try fixture.cloud.status(device: "new") == RemoteDeviceStatus(
            device: "new", account: "default", isOffline: false, latencyMilliseconds: 0,
            errorRates: [], scriptedErrors: [], quota: nil, recordCount: 0))
    }
}
