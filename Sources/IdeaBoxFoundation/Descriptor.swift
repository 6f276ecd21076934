import Glibc

/// What IdeaBox does with a raw file descriptor that Foundation has no call for.
public enum Descriptor {
    /// Writes all of `bytes` to `descriptor`, however many calls that takes and whatever
    /// signals interrupt them. False if a write failed, with `errno` saying why.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
