import ArgumentParser

/// The limits `remote quota` and `serve account quota` take (`N`, `500M`, `off`): one reading,
/// one message each.
enum QuotaLimit {
    /// The most records `text` allows, or nil for `off`.
    static func maxRecords(_ text: String) throws -> Int? {
        try limit(text, "The quota must be a number of records (0 or more) or `off`").map(Int.init)
    }

    /// The most zones `text` allows, or nil for `off`.
    static func maxZones(_ text: String) throws -> Int? {
        try limit(text, "--zones must be a number of zones (0 or more) or `off`").map(Int.init)
    }

    /// The most bytes `text` allows (`500M`, `2G`, `1048576`), or nil for `off`.
    static func maxBytes(_ text: String) throws -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        let unit = text.last.flatMap { units[Character($0.uppercased())] }
        let number = unit == nil ? text : String(text.dropLast())
        let problem = "--asset-bytes must be a number of bytes (0 or more, with K, M, G or T for KiB, MiB, GiB or TiB) or `off`"
        guard let limit = try limit(number == "" ? text : number, problem) else { return nil }
        let (bytes, overflow) = limit.multipliedReportingOverflow(by: unit ?? 1)
        guard !overflow else { throw ValidationError("\(problem), not \"\(text)\".") }
        return bytes
    }

    private static func limit(_ text: String, _ problem: String) throws -> Int64? {
        if text.lowercased() == "off" { return nil }
        guard let value = Int64(text), value >= 0, value <= Int64(Int32.max) << 16 else {
            throw ValidationError("\(problem), not \"\(text)\".")
        }
        return value
    }
}
