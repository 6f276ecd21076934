import Foundation
import ProcessTestSupport
import Testing

/// The seven sample ideas a new data directory starts with.
@Suite(.takesTurns) struct SampleIdeasTests {
    static let englishList = """
        1dea0007  [ ] Plan a weekly review of ideas
        1dea0006  [ ] Sketch a widget for today's ideas
        1dea0005  [x] Write a blog post about CloudKit sync
        1dea0004  [ ] Design the app icon
        1dea0003  [ ] Attend an iOS development workshop
        1dea0002  [x] Finish the Liquid Glass tutorial
        1dea0001  [ ] Learn SwiftData

        """

    @Test func firstLaunchSeedsSevenEnglishSamples() async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.launch()
        #expect(try await sandbox.succeed(["list"]) == Self.englishList)
        let ideas = try await sandbox.ideas()
        #expect(ideas.count == 7)
        #expect(ideas.allSatisfy { $0.deviceId == "sample-en" && $0.version == 0 && $0.lastSyncedAt == nil })
    }

    @Test func firstLaunchUnderZhTWSeedsChineseSamples() async throws {
        let sandbox = try Sandbox(samples: true, language: "zh_TW.UTF-8")
        try await sandbox.launch()
        #expect(try await sandbox.succeed(["list"]) == """
            1dea0007  [ ] 規劃每週靈感回顧
            1dea0006  [ ] 畫一個今日靈感小工具的草圖
            1dea0005  [x] 寫一篇關於 CloudKit 同步的文章
            1dea0004  [ ] 設計 App 圖示
            1dea0003  [ ] 參加 iOS 開發工作坊
            1dea0002  [x] 完成 Liquid Glass 教學
            1dea0001  [ ] 學習 SwiftData

            """)
        #expect(try await sandbox.succeed(["search", "靈感"]) == """
            1dea0007  [ ] 規劃每週靈感回顧
            1dea0006  [ ] 畫一個今日靈感小工具的草圖

            """)
    }

    @Test func aFirstCommandOtherThanAddSeedsThem() async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.succeed(["rm", "1dea0001"])
        let id = try await sandbox.add("Mine")
        let samplesLeft = Self.englishList.replacingOccurrences(of: "1dea0001  [ ] Learn SwiftData\n", with: "")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Mine\n" + samplesLeft)
    }

    @Test func addAsTheVeryFirstCommandStartsAnEmptyListForGood() async throws {
        let sandbox = try Sandbox(samples: true)
        let id = try await sandbox.add("Mine")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Mine\n")
        #expect(try await sandbox.run(["show", "1dea0001"]).status != 0, "no sample under its id")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Mine\n", "no later command seeds them")
    }

    @Test func aDeletedSampleDoesNotComeBack() async throws {
        let sandbox = try Sandbox(samples: true)
        #expect(try await sandbox.succeed(["rm", "1dea0003"]) == "1dea0003  [ ] Attend an iOS development workshop\n")
        let expected = Self.englishList.replacingOccurrences(of: "1dea0003  [ ] Attend an iOS development workshop\n", with: "")
        #expect(try await sandbox.succeed(["list"]) == expected)
        #expect(try await sandbox.succeed(["list"]) == expected)
        #expect(try await sandbox.succeed(["list"], environment: ["LANG": "zh_TW.UTF-8"]) == expected)
    }

    @Test func deletingAllSamplesLeavesAnEmptyList() async throws {
        let sandbox = try Sandbox(samples: true)
        for index in 1...7 {
            try await sandbox.succeed(["rm", "1dea000\(index)"])
        }
        #expect(try await sandbox.succeed(["list"]) == "")
        #expect(try await sandbox.succeed(["list"]) == "")
    }

    @Test func noSamplesFlagSkipsThemForGood() async throws {
        let sandbox = try Sandbox(samples: true)
        let id = try await sandbox.add("Mine", extra: ["--no-samples"])
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Mine\n")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Mine\n")
    }

    @Test(arguments: ["1", "true", "YES"])
    func environmentVariableSkipsThemForGood(value: String) async throws {
        let sandbox = try Sandbox(samples: true)
        let id = try await sandbox.succeed(["add", "Mine"], environment: ["IDEABOX_NO_SAMPLES": value]).trimmingCharacters(in: .newlines)
        #expect(try await sandbox.succeed(["list"], environment: ["IDEABOX_NO_SAMPLES": value]) == "\(id.prefix(8))  [ ] Mine\n")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Mine\n")
    }

    @Test func environmentVariableSetToZeroStillSeeds() async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.launch(environment: ["IDEABOX_NO_SAMPLES": "0"])
        #expect(try await sandbox.succeed(["list"], environment: ["IDEABOX_NO_SAMPLES": "0"]) == Self.englishList)
    }

    @Test func eachProfileIsSeededOnItsOwnFirstLaunch() async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.succeed(["rm", "1dea0001"])
        try await sandbox.launch(["--profile", "laptop"])
        #expect(try await sandbox.succeed(["list", "--profile", "laptop"]) == Self.englishList)
    }
}
