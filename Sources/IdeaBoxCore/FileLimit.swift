import Glibc

/// The process's limit on open files: each connection and each held long poll takes one,
/// so a server raises its soft limit to the hard one before it listens.
public enum FileLimit {
    /// The soft limit on open files now in force.
    public static var current: UInt64 {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? UInt64(limit.rlim_cur) : 1024
    }

    /// Raises the soft limit on open files to the hard limit; returns the limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
