import CloudKitModel

/// One read of records by name (`RecordZoneStore.records(account:in:named:byteBudget:)`): the
/// names are read in order until the records found hold a byte budget, so a lookup of 200
/// names of 1 MB records is read (and answered) about 8 MiB at a time, never 200 MB at once.
public struct NamedRecords: Sendable, Equatable {
    /// The records found among the names read, in the order of their names.
    public var records: [RemoteRecord]
    /// How many of the names asked were read (those not found among them do not exist): the
    /// rest are for the next read.
    public var namesRead: Int

    /// A read of `namesRead` names that found `records`.
    public init(records: [RemoteRecord] = [], namesRead: Int = 0) {
        self.records = records
        self.namesRead = namesRead
    }

    /// Whether a read that has found records holding `bytes` reads no further name.
    public static func isFull(bytes: Int, byteBudget: Int) -> Bool {
        bytes >= byteBudget
    }
}
