import RemoteTestSupport
import Testing

/// The PostgreSQL runs of the contract suite are never skipped where they are required.
@Suite struct TestPostgresTests {
    @Test("Where PostgreSQL is required (CI), a database is configured, so its contract runs happen",
          .enabled(if: TestPostgres.isRequired))
    func configuredWhenRequired() async throws {
        #expect(TestPostgres.url != nil)
        #expect(RemoteKind.tested.contains(.servedPostgres))
        _ = try await TestPostgres.store(clock: .fixed(CloudFixture.start), maximumRecordsPerRequest: 200)
    }
}
