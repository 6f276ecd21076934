import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import ProcessTestSupport

/// A fresh in-memory database, a repository over it and a clock the test moves by hand.
struct ViewModelFixture {
    /// The fixed start of every test (2026-11-20T08:15:30.000Z).
    static let start = TestTime.start

    let database: IdeaDatabase
    let clock: ManualClock
    let repository: IdeaRepository

    init() throws {
        clock = ManualClock(start: Self.start)
        database = try IdeaDatabase.inMemory(
            firstLaunch: .init(seedsSamples: false, language: .english), ids: .counting())
        repository = database.repository(clock: clock.wallClock, ids: .counting())
    }

    /// A second repository on the same database, with ids of its own: another process.
    func otherProcess() -> IdeaRepository {
        database.repository(clock: clock.wallClock, ids: .counting(from: 1_000_000))
    }

    /// Adds ideas titled `Idea 1` … `Idea count` (the last one newest) and returns them in
    /// the order added.
    @discardableResult
    func addIdeas(_ count: Int, completedEvery: Int = 0) throws -> [Idea] {
        try (1...count).map { number in
            try repository.addIdea(
                title: "Idea \(number)",
                isCompleted: completedEvery > 0 && number.isMultiple(of: completedEvery))
        }
    }

    /// An app over this fixture's repository, started and sized 24×80.
    func app(language: Language = .english) throws -> AppModel {
        let app = AppModel(repository: repository, language: language, clock: clock.wallClock)
        try app.start()
        app.resize(rows: 24, columns: 80)
        return app
    }
}

extension AppModel {
    /// Types `text` one key per character.
    func type(_ text: String) {
        for character in text { handle(.char(character)) }
    }
}
