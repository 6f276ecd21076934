import Foundation

/// A UTC instant with millisecond precision, stored exactly as whole milliseconds since 1970.
///
/// Ideas are ordered and compared by these values on every device, so they must survive a
/// round trip through SQLite, JSON and the remote without floating-point drift.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    /// Creates a timestamp from milliseconds since the Unix epoch.
    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Creates a timestamp from a `Date`, dropping anything below a millisecond.
    public init(_ date: Date) {
        self.milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The same instant as a `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This instant moved by a number of milliseconds.
    public func adding(milliseconds delta: Int64) -> Timestamp {
        Timestamp(milliseconds: milliseconds + delta)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    public var description: String { iso8601 }

    // MARK: ISO 8601

    /// `2026-11-20T08:15:30.123Z`: always UTC, always three fractional digits.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        writeISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `iso8601` to `bytes`.
    public func writeISO8601(to bytes: inout [UInt8]) {
        bytes.append(addingCapacity: Self.mostISO8601Count) { span in
            span.withUnsafeMutableBufferPointer { room, count in count = writeISO8601(into: room.baseAddress!) }
        }
    }

    /// The most bytes `writeISO8601(into:)` writes: a year of up to 11 characters, and 20 more.
    public static let mostISO8601Count = 32

    /// Writes `iso8601` at `text`, which has room for `mostISO8601Count` bytes, and returns
    /// how many it wrote. `export` writes three for each idea: a year of four digits
    /// (0000–9999) is written digit by digit, with no `String`.
    public func writeISO8601(into text: UnsafeMutablePointer<UInt8>) -> Int {
        let (days, msOfDay) = milliseconds.floorDivided(by: 86_400_000)
        let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
        guard (0...9999).contains(year) else {
            let utf8 = Array("\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z".utf8)
            text.initialize(from: utf8, count: utf8.count)
            return utf8.count
        }
        var index = 0
        func put(_ value: Int64, _ width: Int, then separator: UInt8) {
            var value = value
            for offset in stride(from: width - 1, through: 0, by: -1) {
                text[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            text[index + width] = separator
            index += width + 1
        }
        put(year, 4, then: UInt8(ascii: "-"))
        put(month, 2, then: UInt8(ascii: "-"))
        put(day, 2, then: UInt8(ascii: "T"))
        put(msOfDay / 3_600_000, 2, then: UInt8(ascii: ":"))
        put(msOfDay / 60_000 % 60, 2, then: UInt8(ascii: ":"))
        put(msOfDay / 1000 % 60, 2, then: UInt8(ascii: "."))
        put(msOfDay % 1000, 3, then: UInt8(ascii: "Z"))
        return index
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]` followed by `Z` or `+00:00`; other offsets are
    /// accepted too and converted to UTC. Returns nil for anything else.
    public init?(iso8601 text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip(" "),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2),
              (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var millis: Int64 = 0
        if scanner.skip(".") {
            guard let fraction = scanner.fraction() else { return nil }
            millis = fraction
        }
        var offsetMinutes: Int64 = 0
        if scanner.skip("Z") {
            offsetMinutes = 0
        } else if let sign = scanner.sign() {
            guard let offsetHours = scanner.number(digits: 2) else { return nil }
            _ = scanner.skip(":")
            guard let offsetMins = scanner.number(digits: 2), offsetHours < 24, offsetMins < 60 else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard scanner.isAtEnd else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let secondsOfDay = hour * 3600 + minute * 60 + second
        milliseconds = (days * 86_400 + secondsOfDay - offsetMinutes * 60) * 1000 + millis
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an ISO 8601 UTC time such as 2026-11-20T08:15:30.123Z, got \"\(text)\"")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

private extension Int64 {
    /// Floor division with a non-negative remainder, so instants before 1970 format correctly.
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = (self >= 0 ? self : self - divisor + 1) / divisor
        return (quotient, self - quotient * divisor)
    }
}

/// Proleptic Gregorian calendar arithmetic (Howard Hinnant's days-from-civil algorithms).
private enum CivilDate {
    static func from(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Reads fixed-width decimal fields out of ASCII bytes.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func number(digits count: Int) -> Int64? {
        guard index + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// One or more fractional digits, truncated to milliseconds.
    mutating func fraction() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            if count < 3 { value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { value *= 10 }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
