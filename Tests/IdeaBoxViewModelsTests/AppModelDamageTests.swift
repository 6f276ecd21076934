import IdeaBoxViewModels
import IdeaStore
import Testing

/// The read of every page runs beside the app (`stop(onDamageFoundBy:)`): damage it finds
/// stops the app with the repair's sentence, but never while the form holds typing.
@Suite struct AppModelDamageTests {
    private let damage = StorageError.damaged(path: "/data/default/ideas.sqlite")

    @Test func damageFoundBesideTheListStopsTheAppWithTheRepairSentence() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app()
        let check = PageCheck()
        app.stop(onDamageFoundBy: check)
        #expect(!app.tick(), "nothing to say while the check runs")
        #expect(!app.wantsToQuit)
        check.finish(.success(()))
        app.tick()
        #expect(!app.wantsToQuit, "every page read: the app goes on")
        #expect(app.stopFailure == nil)

        let damaged = PageCheck()
        app.stop(onDamageFoundBy: damaged)
        damaged.finish(.failure(damage))
        #expect(app.tick())
        #expect(app.wantsToQuit)
        #expect(app.stopFailure as? StorageError == damage)
    }

    @Test func withTheFormOpenTheAppWaitsUntilItClosesSoNothingTypedIsLost() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        let check = PageCheck()
        app.stop(onDamageFoundBy: check)
        app.handle(.char("n"))
        app.type("typed before")
        check.finish(.failure(damage))
        #expect(app.tick())
        #expect(!app.wantsToQuit, "the form stays with what was typed")
        #expect(app.status.message?.text == damage.message(in: .english))
        app.type(" and after")
        app.tick()
        #expect(!app.wantsToQuit)
        app.handle(.f(2))
        #expect(app.form == nil)
        #expect(try fixture.repository.ideas(.all, limit: 10).map(\.title) == ["typed before and after"])
        app.tick()
        #expect(app.wantsToQuit, "the form closed: now the app stops")
        #expect(app.stopFailure as? StorageError == damage)
    }
}
