import CloudKitModel
@testable import CloudServer
import Foundation
import ProcessTestSupport
import Synchronization
import Testing

/// The polls one change woke read what they answer with once for all of them: the first to
/// ask reads, the others (asking meanwhile or later) take its value; changes carried after
/// different tokens, or of different zones, are read apart.
struct SharedPollReadsTests {
    private static let ideas = RecordZoneID(zoneName: "Ideas")
    private static let files = RecordZoneID(zoneName: "RawLibraryZone")

    @Test("Twenty polls asking at once for the zone tokens make one read, and all take its value")
    func oneReadForAll() async throws {
        let reads = SharedPollReads()
        let count = Mutex(0)
        let (gate, opening) = AsyncStream<Void>.makeStream()
        let read: @Sendable () async -> [RecordZoneID: ChangeToken]? = {
            count.withLock { $0 += 1 }
            // The first read is held until every poll has asked, so the others ask while it runs.
            for await _ in gate { break }
            return [Self.ideas: ChangeToken(data: Data([7]))]
        }
        let polls = (0..<20).map { _ in Task { await reads.zoneTokens(read) } }
        try await Poll.until("the first read has started") { count.withLock { $0 } == 1 }
        opening.yield()
        for poll in polls {
            #expect(await poll.value == [Self.ideas: ChangeToken(data: Data([7]))])
        }
        #expect(count.withLock { $0 } == 1)
        // A poll that asks after the read took its value without reading again.
        #expect(await reads.zoneTokens(read) == [Self.ideas: ChangeToken(data: Data([7]))])
        #expect(count.withLock { $0 } == 1)
    }

    @Test("Changes carried after different tokens, or of different zones, are read apart; after the same token of the same zone, once")
    func carriedByStart() async {
        let reads = SharedPollReads()
        let asked = Mutex<[String]>([])
        func carried(_ since: String, _ zone: RecordZoneID) async -> String? {
            await reads.carriedChanges(after: since, in: zone) {
                asked.withLock { $0.append(zone.zoneName + " after " + since) }
                return CarriedChanges(json: Array("{}".utf8), token: since + "+1")
            }?.token
        }
        #expect(await carried("a", Self.ideas) == "a+1")
        #expect(await carried("a", Self.ideas) == "a+1")
        #expect(await carried("b", Self.ideas) == "b+1")
        #expect(await carried("a", Self.files) == "a+1")
        #expect(asked.withLock { $0 } == ["Ideas after a", "Ideas after b", "RawLibraryZone after a"])
    }
}
