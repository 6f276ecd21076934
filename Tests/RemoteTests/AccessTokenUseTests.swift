import ServerStore
import Testing

/// `AccessTokenUse`: when a request writes its token's last-used time, decided over plain
/// values with no store and no database (issue 61).
@Suite struct AccessTokenUseTests {
    @Test("A token never noted is noted; one noted less than a minute ago is not; one noted a minute ago or more is")
    func notedOncePerMinute() {
        #expect(AccessTokenUse.isNoted(lastUsed: nil, now: 0))
        #expect(!AccessTokenUse.isNoted(lastUsed: 1_000, now: 1_000 + AccessTokenUse.resolution - 1))
        #expect(AccessTokenUse.isNoted(lastUsed: 1_000, now: 1_000 + AccessTokenUse.resolution))
    }
}
