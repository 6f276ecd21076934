import Foundation
import GRDB
@testable import IdeaStore
import Testing

/// `DatabaseRecord`: SQLite's record format read from bytes, every serial type, and nil for
/// a record that runs past its end or uses a type no record has.
@Suite struct DatabaseRecordTests {
    @Test func everySerialTypeReads() {
        let payload: [UInt8] = [11, 0, 1, 2, 3, 4, 5, 6, 8, 9, 19]
            + [0x80] + [0x80, 0x00] + [0x80, 0x00, 0x00] + [0xFF, 0xFF, 0xFF, 0xFE]
            + [0x00, 0x01, 0x00, 0x00, 0x00, 0x00] + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
            + Array("abc".utf8)
        #expect(DatabaseRecord.values(of: payload, textEncoding: 1) == [
            .null, (-128).databaseValue, (-32768).databaseValue, (-8_388_608).databaseValue, (-2).databaseValue,
            (1 << 32).databaseValue, Int64.max.databaseValue, 0.databaseValue, 1.databaseValue, "abc".databaseValue,
        ])
    }

    @Test func textReadsInTheDatabasesEncoding() {
        let little: [UInt8] = [2, 13 + 2 * 4, 0x48, 0x00, 0x88, 0x6C]
        let big: [UInt8] = [2, 13 + 2 * 4, 0x00, 0x48, 0x6C, 0x88]
        #expect(DatabaseRecord.values(of: little, textEncoding: 2) == ["H沈".databaseValue])
        #expect(DatabaseRecord.values(of: big, textEncoding: 3) == ["H沈".databaseValue])
        #expect(DatabaseRecord.values(of: [2, 17, 0xFF, 0x41], textEncoding: 1) == ["\u{FFFD}A".databaseValue])
    }

    @Test(arguments: [
        [], [0], [5, 1, 1], [2, 1], [2, 10], [2, 11], [2, 13 + 2 * 5, 0x41],
        [3, 0x81, 0x81], [2, 0x81, 0x00], [2, 0x89, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    ] as [[UInt8]])
    func aRecordThatRunsPastItsEndOrHasNoSuchTypeIsNil(payload: [UInt8]) {
        #expect(DatabaseRecord.values(of: payload, textEncoding: 1) == nil)
    }
}
