import Glibc

/// The process's limit on open files: each connection and each held long poll takes one,
/// so a server raises its soft limit to the hard one before it listens.
public enum FileLimit {
    /// The soft limit on open files now in force.
    public static var current: UInt64 {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? UInt64(limit.rlim_cur) : 1024
    }

    /// How many files this process has open now (1 if that cannot be read).
    public static var openNow: UInt64 {
        guard let folder = opendir("/proc/self/fd") else { return 1 }
        defer { closedir(folder) }
        var count: UInt64 = 0
        while let entry = readdir(folder) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        // The folder's own descriptor is among them.
        return max(1, count - 1)
    }

    /// How many more files this process may open now: the soft limit less those open.
    public static var available: UInt64 {
        let limit = current
        let open = openNow
        return limit > open ? limit - open : 0
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
