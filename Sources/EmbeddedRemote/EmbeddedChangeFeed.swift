import CloudKitModel
import Foundation
import Glibc
import Synchronization

/// One device's feed of the embedded remote: it watches the remote's change file
/// (`ZoneChangeFile`) with inotify and wakes when another device of its account writes to
/// a watched zone. The cursor is a byte offset in that file.
final class EmbeddedChangeFeed: ZoneChangeFeed {
    private struct Watch {
        var descriptor: Int32
        var zones: Set<RecordZoneID>
    }

    private let cloud: SimulatedCloud
    private let file: ZoneChangeFile
    private let device: String
    private let watch = Mutex<Watch?>(nil)

    init(cloud: SimulatedCloud, file: ZoneChangeFile, device: String) {
        self.cloud = cloud
        self.file = file
        self.device = device
    }

    deinit {
        if let descriptor = watch.withLock({ $0?.descriptor }) { close(descriptor) }
    }

    func startWatching(_ zones: [RecordZoneID]) async throws -> ChangeCursor {
        try file.create()
        try watch.withLock { watch in
            if watch == nil {
                let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
                guard descriptor >= 0 else { throw CloudError.internalError }
                guard inotify_add_watch(descriptor, file.url.path, UInt32(IN_MODIFY)) >= 0 else {
                    close(descriptor)
                    throw CloudError.internalError
                }
                watch = Watch(descriptor: descriptor, zones: [])
            }
            watch?.zones = Set(zones)
        }
        // The watch is in place before the size is read: a line written after it wakes us.
        return ChangeCursor(String(file.size()))
    }

    /// Waits on a thread of its own: the wait is a `poll` of the inotify descriptor, which
    /// blocks its thread for up to `seconds`, so it never runs on the cooperative pool.
    func waitForChanges(after cursor: ChangeCursor, seconds: Int) async throws -> ZoneChangeNotice? {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try self.waitBlocking(after: cursor, seconds: seconds) })
            }
        }
    }

    /// `waitForChanges`, blocking the calling thread.
    private func waitBlocking(after cursor: ChangeCursor, seconds: Int) throws -> ZoneChangeNotice? {
        guard let current = watch.withLock({ $0 }), var offset = Int(cursor.value) else { throw CloudError.internalError }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            guard let read = file.lines(after: offset) else {
                return ZoneChangeNotice(zones: current.zones.sorted { $0.zoneName < $1.zoneName }, cursor: ChangeCursor(String(file.size())))
            }
            offset = read.end
            let account = try cloud.network.signedInAccount(device: device)
            let zones = Set(read.lines.filter { $0.account == account && $0.device != device && current.zones.contains($0.zone) }.map(\.zone))
            if !zones.isEmpty {
                return ZoneChangeNotice(zones: zones.sorted { $0.zoneName < $1.zoneName }, cursor: ChangeCursor(String(offset)))
            }
            let left = deadline - .now
            guard left > .zero else { return nil }
            try Self.waitForEvent(on: current.descriptor, milliseconds: Int32(min(60_000, max(1, (left / .milliseconds(1)).rounded(.up)))))
        }
    }

    /// Waits until the inotify descriptor has an event or `milliseconds` pass, then drains it.
    private static func waitForEvent(on descriptor: Int32, milliseconds: Int32) throws {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&request, 1, milliseconds)
        guard ready >= 0 || errno == EINTR else { throw CloudError.internalError }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
