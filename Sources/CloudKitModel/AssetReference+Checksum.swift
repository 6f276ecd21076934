import Crypto
import Foundation

extension AssetReference {
    /// The reference of `data`.
    public init(of data: some DataProtocol) {
        self.init(computedChecksum: Self.checksum(of: data), size: Int64(data.count))
    }

    /// Whether `data` is the asset this names.
    public func matches(_ data: some DataProtocol) -> Bool {
        Int64(data.count) == size && Self.checksum(of: data) == checksum
    }

    /// SHA-256 of `data` in lower-case hex.
    public static func checksum(of data: some DataProtocol) -> String {
        checksum(of: SHA256.hash(data: data))
    }

    /// A SHA-256 digest (of bytes hashed as they came) in lower-case hex.
    public static func checksum(of digest: SHA256.Digest) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
