import DatabaseDamage
import Foundation
import IdeaBoxFoundation
import IdeaStore
import Testing

/// Reads beside the app's loop: where they run, and how they say they ended.
@Suite struct BackgroundReadTests {
    @Test func anInlineReadHasFinishedWhenItIsHandedBack() throws {
        let store = try StoreFixture()
        _ = try store.repository.addIdea(title: "one")
        let read = store.repository.read(.inline) { try $0.count(.all) }
        #expect(try read.result?.get() == 1)
    }

    @Test func aReadOnAQueueEndsThereAndSaysSo() async throws {
        let store = try StoreFixture()
        let queue = DispatchQueue(label: "reads")
        queue.suspend()
        let (ended, signal) = AsyncStream<Void>.makeStream()
        let read = store.repository.read(.on(queue) { signal.yield() }) { _ -> Int in throw StorageError.readOnly(path: "/nowhere") }
        #expect(!read.isFinished)
        queue.resume()
        for await _ in ended { break }
        #expect(read.isFinished)
        #expect(throws: StorageError.readOnly(path: "/nowhere")) { try read.result?.get() }
    }

    /// `checkEveryPageInBackground`: the read of every page, on a queue of its own, says how
    /// it ended through the `PageCheck` it hands back.
    private static let noSamples = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english)

    @Test(arguments: [false, true])
    func theCheckFindsADamagedPageTheListDoesNotReach(damaged: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PageCheckTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let clock = ManualClock(start: StoreFixture.start)
            let database = try IdeaDatabase.open(directory: directory, firstLaunch: Self.noSamples, use: .app)
            let repository = database.repository(clock: clock.wallClock, ids: .random)
            for number in 1...600 {
                _ = try repository.addIdea(title: "Idea \(number)", description: "About \(number)")
            }
            try database.close()
            if damaged {
                let pages = try DatabaseDamage.leafPages(of: "idea", in: file)
                try DatabaseDamage.overwrite(pages: [pages[pages.count / 2]], of: file)
            }

            let reopened = try IdeaDatabase.open(directory: directory, firstLaunch: Self.noSamples, use: .app)
            let (ended, signal) = AsyncStream<Void>.makeStream()
            let check = reopened.repository(clock: clock.wallClock, ids: .random).checkEveryPageInBackground { signal.yield() }
            for await _ in ended { break }
            #expect(check.isFinished)
            #expect((check.failure as? StorageError)?.isDamage == (damaged ? true : nil))
            try reopened.close()
        }
    }
}
