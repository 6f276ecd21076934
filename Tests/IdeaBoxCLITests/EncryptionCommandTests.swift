import DatabaseDamage
import Foundation
import ProcessTestSupport
import Testing

/// `ideabox account encryption enable | passphrase | disable` and `account unlock` on the
/// embedded remote: what the remote's files hold, a second device's unlock, a wrong
/// passphrase, and two devices turning encryption on at once. Passphrases come on standard
/// input; `IDEABOX_TEST_SCRYPT=fast` keeps each derivation to milliseconds.
@Suite(.takesTurns) struct EncryptionCommandTests {
    private static let fast: [String: String?] = ["IDEABOX_TEST_SCRYPT": "fast"]
    private static let words = ["Zanzibar", "marmalade", "秘密計畫", "牛奶糖"]
    private static let passphrase = "correct horse battery"

    @Test func enableSealsEverythingAndOtherDevicesUnlockWithThePassphraseOrTheRecoveryKey() async throws {
        let sandbox = try Sandbox()
        let enabled = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        #expect(enabled.hasPrefix("Encryption is on for account default: 0 records were sealed now;"))
        let recoveryKey = try #require(enabled.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 34 && $0.filter { $0 == "-" }.count == 6 })
        try await sandbox.succeed(on: "A", ["add", "Zanzibar marmalade", "-d", "秘密計畫"])
        try await sandbox.succeed(on: "A", ["add", "牛奶糖", "-d", "Zanzibar"])
        #expect(try await sandbox.sync("A").sent == 2)
        #expect(try await encryption(of: "A", in: sandbox) == "on")

        // B is locked: nothing syncs, everything local works.
        try await sandbox.expectRejection(
            on: "B", ["sync"], message: "This account's ideas are encrypted and this device is locked; run ideabox account unlock.")
        #expect(try await encryption(of: "B", in: sandbox) == "locked")
        #expect(try await sandbox.succeed(on: "B", ["status"]).contains("encryption: on, this device locked (run ideabox account unlock)\n"))
        try await sandbox.succeed(on: "B", ["add", "Made while locked"])
        #expect(try await sandbox.ideas(on: "B").map(\.title) == ["Made while locked"])

        // A wrong passphrase is one sentence, and nothing changes.
        try await sandbox.expectRejection(
            ["account", "unlock", "--profile", "B"], message: "This passphrase does not unlock the account's key.",
            environment: Self.fast, input: Data("not it\n".utf8))
        #expect(try await encryption(of: "B", in: sandbox) == "locked")

        #expect(try await sandbox.succeed(
            ["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
            == "Unlocked: this device syncs account default's encrypted ideas.\n")
        let unlocked = try await sandbox.sync("B")
        #expect(unlocked.received == 2 && unlocked.sent == 1)
        #expect(try await sandbox.sync("A").received == 1)

        try await sandbox.expectRejection(
            ["account", "unlock", "--recovery-key", "--profile", "C"], message: "This is not a recovery key: a character is mistyped, missing or extra.",
            environment: Self.fast, input: Data("ABCD-EFGH\n".utf8))
        try await sandbox.succeed(["account", "unlock", "--recovery-key", "--profile", "C"], environment: Self.fast, input: Data("\(recoveryKey)\n".utf8))
        #expect(try await sandbox.sync("C").received == 3)
        #expect(try await sandbox.syncedState(of: "C") == sandbox.syncedState(of: "A"))
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))

        let remote = try remoteBytes(sandbox)
        for word in Self.words + [Self.passphrase, "Made while locked"] {
            #expect(remote.firstRange(of: Data(word.utf8)) == nil, "found \(word) on the remote")
        }
    }

    @Test func turningItOnForAnAccountWithDataLeavesNoPlainCopy() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["add", "Zanzibar marmalade", "-d", "秘密計畫"])
        try await sandbox.succeed(on: "A", ["add", "牛奶糖"])
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        #expect(try remoteBytes(sandbox).firstRange(of: Data("Zanzibar".utf8)) != nil, "the scan sees plain records")

        let enabled = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        #expect(enabled.hasPrefix("Encryption is on for account default: 2 records were sealed now;"))
        let remote = try remoteBytes(sandbox)
        for word in Self.words {
            #expect(remote.firstRange(of: Data(word.utf8)) == nil, "found \(word) on the remote")
        }
        // A device that synced them plain keeps them, and is locked from now on.
        try await sandbox.expectRejection(
            on: "B", ["sync"], message: "This account's ideas are encrypted and this device is locked; run ideabox account unlock.")
        #expect(try await sandbox.ideas(on: "B").count == 2)
        try await sandbox.succeed(["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func aPassphraseChangeRewrapsTheKeyAndDisableBringsRecordsBackPlain() async throws {
        let sandbox = try Sandbox()
        _ = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        try await sandbox.succeed(on: "A", ["add", "Zanzibar marmalade"])
        try await sandbox.sync("A")

        let tagsBefore = try changeTags(sandbox)
        #expect(tagsBefore.count == 1)
        try await sandbox.expectRejection(
            ["account", "encryption", "passphrase", "--profile", "A"], message: "This passphrase does not unlock the account's key.",
            environment: Self.fast, input: Data("wrong\nnew words at dusk\nnew words at dusk\n".utf8))
        #expect(try await sandbox.succeed(
            ["account", "encryption", "passphrase", "--profile", "A"], environment: Self.fast,
            input: Data("\(Self.passphrase)\nnew words at dusk\nnew words at dusk\n".utf8))
            == "The passphrase is changed; no record was rewritten, and the recovery key stays the same.\n")
        #expect(try changeTags(sandbox) == tagsBefore, "the server's change tags are as they were: no record was touched")
        try await sandbox.expectRejection(
            ["account", "unlock", "--profile", "B"], message: "This passphrase does not unlock the account's key.",
            environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        try await sandbox.succeed(["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("new words at dusk\n".utf8))
        #expect(try await sandbox.sync("B").received == 1)

        #expect(try await sandbox.succeed(
            ["account", "encryption", "disable", "--profile", "A"], environment: Self.fast, input: Data("new words at dusk\n".utf8))
            == "Encryption is off for account default: 1 record is plain again, and the server can read them.\n")
        #expect(try remoteBytes(sandbox).firstRange(of: Data("Zanzibar".utf8)) != nil)
        try await sandbox.sync("C")
        #expect(try await sandbox.ideas(on: "C").map(\.title) == ["Zanzibar marmalade"])
        // B still holds the key and the remote has no envelope: B sends nothing (a server
        // that removed the envelope would get nothing plain) until B lets go of its key.
        let refused = try await sandbox.run(on: "B", ["sync"])
        #expect(refused.status != 0, "\(refused)")
        try await sandbox.expectRejection(
            on: "B", ["account", "unlock"],
            message: "The remote no longer holds account default's key, so this device sends nothing; if encryption was turned off on another device, run: ideabox account encryption disable",
            environment: Self.fast)
        #expect(try await sandbox.succeed(on: "B", ["account", "encryption", "disable"], environment: Self.fast)
            == "This device let go of account default's key: encryption is off, and what it sends the server can read.\n")
        try await sandbox.sync("B")
        #expect(try await encryption(of: "B", in: sandbox) == "off")
    }

    @Test func twoDevicesEnablingAtOnceAgreeOnOneKey() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["add", "Made on A"])
        try await sandbox.succeed(on: "B", ["add", "Made on B"])
        async let first = Self.enableResult(on: "A", passphrase: "words of device A", in: sandbox)
        async let second = Self.enableResult(on: "B", passphrase: "words of device B", in: sandbox)
        let results = try await [("A", first), ("B", second)]
        let winners = results.filter { $0.1.status == 0 }
        let losers = results.filter { $0.1.status != 0 }
        try #require(winners.count == 1 && losers.count == 1, "\(results)")
        // Refused at publishing (both read no envelope) or before asking (the winner's was there).
        #expect([
            "ideabox: Another device turned encryption on first with another passphrase; unlock with its passphrase: ideabox account unlock\n",
            "ideabox: Encryption is already on for account default; unlock this device with: ideabox account unlock\n",
        ].contains(losers[0].1.stderr), "\(losers[0].1)")
        let winnerWords = winners[0].0 == "A" ? "words of device A" : "words of device B"
        try await sandbox.succeed(["account", "unlock", "--profile", losers[0].0], environment: Self.fast, input: Data("\(winnerWords)\n".utf8))
        for profile in ["A", "B", "A"] { try await sandbox.sync(profile) }
        #expect(try await sandbox.ideas(on: "A").count == 2)
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
        #expect(try remoteBytes(sandbox).firstRange(of: Data("Made on".utf8)) == nil)
    }


    @Test func aRotationSealsEveryRecordAgainAndADeviceOfflineMeanwhileCatchesUp() async throws {
        let sandbox = try Sandbox()
        _ = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        try await sandbox.succeed(on: "A", ["add", "Zanzibar marmalade", "-d", "秘密計畫"])
        try await sandbox.succeed(on: "A", ["add", "牛奶糖"])
        try await sandbox.sync("A")
        for profile in ["B", "C"] {
            try await sandbox.succeed(["account", "unlock", "--profile", profile], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
            #expect(try await sandbox.sync(profile).received == 2)
        }
        let oldKeys = Set(try sealedKeyIDs(sandbox))
        try #require(oldKeys.count == 1)

        // C goes offline and writes; A rotates meanwhile (a wrong passphrase first: nothing changes).
        try await sandbox.succeed(on: "C", ["remote", "offline", "on"])
        try await sandbox.succeed(on: "C", ["add", "Written offline"])
        try await sandbox.expectRejection(
            ["account", "encryption", "rotate", "--profile", "A"], message: "This passphrase does not unlock the account's key.",
            environment: Self.fast, input: Data("not it\n".utf8))
        #expect(Set(try sealedKeyIDs(sandbox)) == oldKeys)
        let rotated = try await sandbox.succeed(
            ["account", "encryption", "rotate", "--profile", "A"], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        let lines = rotated.split(separator: "\n").map(String.init)
        let match = try #require(lines.first?.firstMatch(of: /^The account key is rotated: key ([0-9a-f]{16}) replaces key ([0-9a-f]{16}); the passphrase and the recovery key stay the same\.$/))
        let (newKey, oldKey) = (String(match.1), String(match.2))
        #expect([oldKey] == Array(oldKeys))
        #expect(lines.dropFirst() == ["2 records were sealed again with it; other unlocked devices follow without the passphrase."])
        #expect(try sealedKeyIDs(sandbox) == [newKey, newKey], "no record on the remote is sealed with the old key")

        // B follows the rotation without the passphrase, and its new idea is sealed with the new key.
        try await sandbox.succeed(on: "B", ["add", "After the rotation"])
        let followed = try await sandbox.sync("B")
        #expect(followed.sent == 1, "\(followed)")
        #expect(try await encryption(of: "B", in: sandbox) == "on")

        // C comes back: it follows too, sends what it wrote offline, and receives the rest.
        try await sandbox.succeed(on: "C", ["remote", "offline", "off"])
        let caughtUp = try await sandbox.sync("C")
        #expect(caughtUp.sent == 1 && caughtUp.received >= 1, "\(caughtUp)")
        for profile in ["A", "B"] { try await sandbox.sync(profile) }
        #expect(try await sandbox.ideas(on: "A").count == 4)
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
        #expect(try await sandbox.syncedState(of: "C") == sandbox.syncedState(of: "A"))
        #expect(try sealedKeyIDs(sandbox) == Array(repeating: newKey, count: 4))
        // The passphrase still unlocks a new device, straight to the new key.
        try await sandbox.succeed(["account", "unlock", "--profile", "D"], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        #expect(try await sandbox.sync("D").received == 4)
        let remote = try remoteBytes(sandbox)
        for word in Self.words + ["Written offline", "After the rotation"] {
            #expect(remote.firstRange(of: Data(word.utf8)) == nil, "found \(word) on the remote")
        }
    }

    @Test func aRotationInTheBackgroundIsFinishedByTheNextSyncAndOldRecordsStayReadableMeanwhile() async throws {
        let sandbox = try Sandbox()
        _ = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        for title in ["one", "two", "three"] { try await sandbox.succeed(on: "A", ["add", title]) }
        try await sandbox.sync("A")
        let oldKeys = Set(try sealedKeyIDs(sandbox))
        let rotated = try await sandbox.succeed(
            ["account", "encryption", "rotate", "--background", "--profile", "A"], environment: Self.fast,
            input: Data("\(Self.passphrase)\n".utf8))
        #expect(rotated.hasSuffix(
            "Records still sealed with the earlier key are sealed again by this device's next syncs, and stay readable meanwhile.\n"),
            "\(rotated)")
        let newKey = String(try #require(rotated.firstMatch(of: /key ([0-9a-f]{16}) replaces/)).1)
        #expect(Set(try sealedKeyIDs(sandbox)) == oldKeys)
        try await sandbox.succeed(["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        #expect(try await sandbox.sync("B").received == 3, "records sealed with the earlier key stay readable")
        // A failing remote leaves the work for the sync after.
        try await sandbox.succeed(on: "A", ["remote", "fault", "script", "networkUnavailable", "--operation", "query"])
        #expect(try await sandbox.run(on: "A", ["sync"]).status != 0)
        #expect(Set(try sealedKeyIDs(sandbox)) == oldKeys)
        try await sandbox.sync("A")
        #expect(try sealedKeyIDs(sandbox) == Array(repeating: newKey, count: 3))
    }

    /// Issue 59: with `sync --watch` (or the app) open on the profile, the watch may seal and
    /// send the ideas under the new key before the reset's own overwrite does; the reset says
    /// what the remote holds under the new key either way, not what it sent itself (it said 0).
    @Test func aResetWithASyncRunningOnTheProfileCountsWhatTheRemoteHoldsUnderTheNewKey() async throws {
        let sandbox = try Sandbox()
        _ = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        for index in 1...20 { try await sandbox.succeed(on: "A", ["add", "Idea \(index)"]) }
        try await sandbox.sync("A")
        let watch = try sandbox.startWatch(on: "A")
        defer { watch.child.stopInBackground() }
        try await watch.waitUntil("A listens") { watch.printed.contains("Listening: changes of other devices arrive live.") }
        let reset = try await sandbox.succeed(
            ["account", "encryption", "reset", "--yes", "--profile", "A"], environment: Self.fast,
            input: Data("a fresh passphrase of many words\na fresh passphrase of many words\n".utf8))
        #expect(reset.hasPrefix("The account's encryption is reset: a new key and passphrase; 20 ideas and 0 library files were sealed again"), "\(reset)")
        let keys = try sealedKeyIDs(sandbox)
        #expect(keys.count == 20 && Set(keys).count == 1, "\(keys)")
    }

    @Test func aResetSealsEverythingAgainFromThisDeviceAndOtherDevicesNeedTheNewPassphrase() async throws {
        let sandbox = try Sandbox()
        _ = try await enable(on: "A", passphrase: Self.passphrase, in: sandbox)
        try await sandbox.succeed(on: "A", ["add", "Zanzibar marmalade", "-d", "秘密計畫"])
        try await sandbox.succeed(on: "A", ["add", "牛奶糖"])
        try await sandbox.sync("A")
        try await sandbox.succeed(["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        try await sandbox.sync("B")
        let oldKeys = Set(try sealedKeyIDs(sandbox))

        try await sandbox.expectRejection(
            ["account", "encryption", "reset", "--profile", "A"],
            message: "A reset makes the remote hold exactly this device's ideas and library, sealed with a new key; confirm with --yes.",
            environment: Self.fast, input: Data("fresh words at dawn\nfresh words at dawn\n".utf8))
        try await sandbox.expectRejection(
            ["account", "encryption", "reset", "--yes", "--profile", "A"], message: "The two passphrases differ; nothing changed.",
            environment: Self.fast, input: Data("fresh words at dawn\nfresh words at daw\n".utf8))
        #expect(Set(try sealedKeyIDs(sandbox)) == oldKeys)

        let reset = try await sandbox.succeed(
            ["account", "encryption", "reset", "--yes", "--profile", "A"], environment: Self.fast,
            input: Data("fresh words at dawn\nfresh words at dawn\n".utf8))
        #expect(reset.hasPrefix(
            "The account's encryption is reset: a new key and passphrase; 2 ideas and 0 library files were sealed again from this device. Every other device unlocks again with the new passphrase.\n"),
            "\(reset)")
        let recoveryKey = try #require(reset.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 34 && $0.filter { $0 == "-" }.count == 6 })
        let newKeys = try sealedKeyIDs(sandbox)
        #expect(newKeys.count == 2 && Set(newKeys).count == 1 && Set(newKeys).isDisjoint(with: oldKeys), "\(newKeys)")

        // B is locked out of the new key: the old passphrase no longer unlocks, the new one does.
        try await sandbox.expectRejection(
            on: "B", ["sync"],
            message: "The account no longer uses this device's key (encryption turned off or reset on another device, or its key removed "
                + "from the server), so nothing is sent; run ideabox account unlock, or ideabox account encryption disable if it was turned off.")
        try await sandbox.expectRejection(
            ["account", "unlock", "--profile", "B"], message: "This passphrase does not unlock the account's key.",
            environment: Self.fast, input: Data("\(Self.passphrase)\n".utf8))
        try await sandbox.succeed(["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("fresh words at dawn\n".utf8))
        try await sandbox.sync("B")
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
        try await sandbox.succeed(["account", "unlock", "--recovery-key", "--profile", "C"], environment: Self.fast, input: Data("\(recoveryKey)\n".utf8))
        #expect(try await sandbox.sync("C").received == 2)
        #expect(try await sandbox.syncedState(of: "C") == sandbox.syncedState(of: "A"))
        let remote = try remoteBytes(sandbox)
        for word in Self.words + ["fresh words at dawn"] {
            #expect(remote.firstRange(of: Data(word.utf8)) == nil, "found \(word) on the remote")
        }
    }

    @Test func aWeakNewPassphraseIsRefusedWithTheRuleInBothLanguagesAndNothingChanges() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["add", "Zanzibar marmalade"])
        try await sandbox.sync("A")
        let rule = "; nothing changed. A passphrase needs at least 12 characters and must be hard to guess: repeated characters, "
            + "runs such as abc or 123, and common passwords count for little. A few words of your own, in an order only you would pick, work well."
        let refusals = [
            ("x", "This passphrase has 1 character" + rule),
            ("summer2024!!", "This passphrase is too easy to guess" + rule),
            ("aaaaaaaaaaaa", "This passphrase is too easy to guess" + rule),
            ("password1234", "This passphrase is too easy to guess" + rule),
            ("靈感盒密語", "This passphrase has 5 characters" + rule),
        ]
        for (weak, message) in refusals {
            // Refused at the first asking: the second line is never read.
            try await sandbox.expectRejection(
                ["account", "encryption", "enable", "--profile", "A"], message: message, environment: Self.fast,
                input: Data("\(weak)\n\(weak)\n".utf8))
        }
        try await sandbox.expectRejection(
            ["account", "encryption", "enable", "--profile", "A"],
            message: "這個密語只有 5 個字元；沒有任何變更。密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、"
                + "常見的密碼都幾乎不算數。用幾個只有你會想到的詞，依你自己的順序組合，就很好",
            environment: ["IDEABOX_TEST_SCRYPT": "fast", "LANG": "zh_TW.UTF-8"], input: Data("靈感盒密語\n靈感盒密語\n".utf8))
        #expect(try await encryption(of: "A", in: sandbox) == "off")
        #expect(try keyEnvelopes(sandbox) == 0, "no envelope was published")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.appendingPathComponent("profiles/A/account.key").path))
        #expect(try remoteBytes(sandbox).firstRange(of: Data("Zanzibar".utf8)) != nil, "the records stay as they were")
        #expect(try await sandbox.sync("A").sent == 0)

        // Twelve Chinese characters are twelve: a passphrase of them keeps the rule.
        let chinese = "我的靈感都在這個盒子裡面"
        #expect(chinese.count == 12)
        #expect(try await enable(on: "A", passphrase: chinese, in: sandbox).hasPrefix("Encryption is on for account default: 1 record was sealed now;"))

        // A change of passphrase and a reset keep the rule too; the passphrase in use stays.
        try await sandbox.expectRejection(
            ["account", "encryption", "passphrase", "--profile", "A"], message: "This passphrase has 9 characters" + rule,
            environment: Self.fast, input: Data("\(chinese)\nnew words\nnew words\n".utf8))
        let tags = try changeTags(sandbox)
        try await sandbox.expectRejection(
            ["account", "encryption", "reset", "--yes", "--profile", "A"], message: "This passphrase is too easy to guess" + rule,
            environment: Self.fast, input: Data("qwertyuiop12\nqwertyuiop12\n".utf8))
        #expect(try changeTags(sandbox) == tags, "the reset sealed nothing again")
        #expect(try await sandbox.succeed(["account", "unlock", "--profile", "B"], environment: Self.fast, input: Data("\(chinese)\n".utf8))
            == "Unlocked: this device syncs account default's encrypted ideas.\n")
    }

    // MARK: Helpers

    /// How many key envelopes the embedded remote holds.
    private func keyEnvelopes(_ sandbox: Sandbox) throws -> Int {
        try DatabaseRows.texts(
            "SELECT record.recordName FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.name = 'AccountKeys'",
            in: remoteFile(sandbox)).count
    }

    private func enable(on profile: String, passphrase: String, in sandbox: Sandbox) async throws -> String {
        try await sandbox.succeed(
            ["account", "encryption", "enable", "--profile", profile], environment: Self.fast,
            input: Data("\(passphrase)\n\(passphrase)\n".utf8))
    }

    private static func enableResult(on profile: String, passphrase: String, in sandbox: Sandbox) async throws -> CommandResult {
        try await sandbox.run(
            ["account", "encryption", "enable", "--profile", profile], environment: fast,
            input: Data("\(passphrase)\n\(passphrase)\n".utf8))
    }

    private func encryption(of profile: String, in sandbox: Sandbox) async throws -> String? {
        let output = try await sandbox.succeed(on: profile, ["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return object?["encryption"] as? String
    }

    /// The embedded remote's file.
    private func remoteFile(_ sandbox: Sandbox) -> URL {
        sandbox.dataRoot.appendingPathComponent("remote.sqlite")
    }

    /// The key id (16 hex digits) that seals each record on the remote but the envelope, or
    /// `plain` for a record not sealed.
    private func sealedKeyIDs(_ sandbox: Sandbox) throws -> [String] {
        let rows = try DatabaseRows.texts(
            "SELECT record.fields FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.name != 'AccountKeys' ORDER BY record.recordName",
            in: remoteFile(sandbox))
        return try rows.map { fields in
            let object = try JSONSerialization.jsonObject(with: Data(fields.utf8)) as? [String: Any]
            guard let sealed = object?["sealed"] as? [String: Any], let text = sealed.values.first as? String,
                  let blob = Data(base64Encoded: text), blob.count > 9
            else { return "plain" }
            return blob.dropFirst().prefix(8).map { String(format: "%02x", $0) }.joined()
        }
    }

    /// The name and change tag of every record on the remote but the envelope.
    private func changeTags(_ sandbox: Sandbox) throws -> [String] {
        try DatabaseRows.texts(
            "SELECT record.recordName || ' ' || record.changeTag FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.name != 'AccountKeys' ORDER BY 1",
            in: remoteFile(sandbox))
    }

    /// Every byte of every file the embedded remote keeps (the data root but the profiles).
    private func remoteBytes(_ sandbox: Sandbox) throws -> Data {
        var bytes = Data()
        let files = FileManager.default.enumerator(at: sandbox.dataRoot, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard !file.path.contains("/profiles/"), let data = FileManager.default.contents(atPath: file.path) else { continue }
            bytes.append(data)
        }
        return bytes
    }
}
