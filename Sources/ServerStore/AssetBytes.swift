import Foundation

/// The bytes of an asset on their way into a store, which takes them a chunk at a time, so
/// that an upload streamed to a file is never held in memory whole.
public enum AssetBytes: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// The whole of a file.
    case file(URL)

    /// The most bytes a store keeps in one row.
    public static let chunkSize = 1 << 20

    /// The chunks, in order: at most `chunkSize` bytes each, none empty.
    public func chunks() throws -> Chunks {
        switch self {
        case .data(let data): Chunks(data: data, file: nil)
        case .file(let url): Chunks(data: nil, file: try FileHandle(forReadingFrom: url))
        }
    }

    /// Reads the chunks one at a time; a file is closed at the end.
    public final class Chunks {
        private var data: Data?
        private let file: FileHandle?

        fileprivate init(data: Data?, file: FileHandle?) {
            self.data = data
            self.file = file
        }

        deinit {
            try? file?.close()
        }

        /// The next chunk, or nil at the end.
        public func next() throws -> Data? {
            if let file {
                guard let chunk = try file.read(upToCount: AssetBytes.chunkSize), !chunk.isEmpty else { return nil }
                return chunk
            }
            guard let rest = data, !rest.isEmpty else { return nil }
            let chunk = rest.prefix(AssetBytes.chunkSize)
            data = rest.dropFirst(chunk.count)
            return Data(chunk)
        }
    }
}
