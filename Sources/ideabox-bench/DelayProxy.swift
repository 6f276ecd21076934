import Foundation
import Glibc
import Synchronization

/// A TCP proxy on 127.0.0.1 that holds every chunk it relays for a fixed delay, each way,
/// so that a loopback server looks as far away as a real one (25 ms each way is a round
/// trip of 50 ms). It counts the HTTP requests that pass through it. Plain sockets, a reading
/// thread per direction and a writing task: the benchmark's few connections need nothing more.
final class DelayProxy: Sendable {
    /// The port it listens on; connect here instead of the server's.
    let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let delay: Duration
    private let requests = Atomic<Int>(0)
    private let open = Mutex<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)

    /// A proxy to 127.0.0.1:`targetPort` that delays each chunk by `delay` each way.
    init(targetPort: Int, delay: Duration) throws {
        self.targetPort = targetPort
        self.delay = delay
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard listener >= 0, bound == 0, listen(listener, 128) == 0 else { throw ProxyError("the delay proxy could not listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// How many HTTP requests went through so far.
    var requestCount: Int { requests.load(ordering: .relaxed) }

    /// Stops accepting and cuts every connection.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in open.withLock({ $0 }) { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func acceptConnections() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            for descriptor in [client, server] {
                var one: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            open.withLock { $0.formUnion([client, server]) }
            let ends = Atomic<Int>(0)
            let finish: @Sendable () -> Void = { [self] in
                guard ends.add(1, ordering: .relaxed).newValue == 2 else { return }
                open.withLock { $0.subtract([client, server]) }
                close(client)
                close(server)
            }
            relay(from: client, to: server, countsRequests: true, then: finish)
            relay(from: server, to: client, countsRequests: false, then: finish)
        }
    }

    /// Reads chunks from `source` on a thread and writes each to `destination` from a task,
    /// `delay` after it was read, in order; closes the writing half at the end. (A write to
    /// a loopback socket of this benchmark's small chunks does not wait for the peer.)
    private func relay(from source: Int32, to destination: Int32, countsRequests: Bool, then finish: @escaping @Sendable () -> Void) {
        let (chunks, queue) = AsyncStream.makeStream(of: (due: ContinuousClock.Instant, bytes: [UInt8]).self)
        let delay = delay
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                let chunk = Array(buffer[0..<count])
                if countsRequests, Self.startsRequest(chunk) { requests.add(1, ordering: .relaxed) }
                queue.yield((ContinuousClock.now + delay, chunk))
            }
            queue.finish()
        }
        Task {
            relaying: for await (due, chunk) in chunks {
                try? await Task.sleep(until: due, clock: .continuous)
                var written = 0
                while written < chunk.count {
                    let count = chunk.withUnsafeBytes { write(destination, $0.baseAddress! + written, chunk.count - written) }
                    guard count > 0 else { break relaying }
                    written += count
                }
            }
            shutdown(destination, Int32(SHUT_WR))
            finish()
        }
    }

    /// Whether a chunk from a client begins a request (rather than continuing a body).
    private static func startsRequest(_ chunk: [UInt8]) -> Bool {
        chunk.starts(with: Array("GET ".utf8)) || chunk.starts(with: Array("POST ".utf8))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    struct ProxyError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
