import Foundation
import Glibc
import IdeaBoxFoundation
import Logging

/// One line per request: time, method, path, status, milliseconds and account (`-` before
/// the token was checked). Never a token, never a body.
public struct RequestLog: Sendable {
    private let write: @Sendable (Entry) -> Void

    /// One answered request.
    struct Entry {
        var method: String
        var path: String
        var status: Int
        var milliseconds: Double
        var account: String?
    }

    /// A log that hands each line, as text, to `write`, stamped by `clock`.
    public init(clock: WallClock, write: @escaping @Sendable (String) -> Void) {
        self.write = { entry in
            write("\(clock.now().iso8601) \(entry.method) \(entry.path) \(entry.status) \(entry.milliseconds) ms \(entry.account ?? "-")")
        }
    }

    /// A log of `logger`'s: each request a `request` message at level info, its fields as
    /// metadata (`method`, `path`, `status`, `ms`, `account`), for `ServeLogHandler` or any
    /// other swift-log backend to write.
    public init(logger: Logger) {
        write = { entry in
            logger.info("request", metadata: [
                "method": .string(entry.method), "path": .string(entry.path), "status": .string(String(entry.status)),
                "ms": .string(String(entry.milliseconds)), "account": .string(entry.account ?? "-"),
            ])
        }
    }

    /// A log on standard error.
    public static func standardError(clock: WallClock) -> RequestLog {
        RequestLog(clock: clock) { line in ServeLogHandler.writeToStandardError(line) }
    }

    /// Logs one answered request.
    func record(method: String, path: String, status: Int, elapsed: Duration, account: String?) {
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        write(Entry(method: method, path: path, status: status, milliseconds: (milliseconds * 10).rounded() / 10, account: account))
    }
}

/// `serve`'s swift-log backend: one line per message on standard error, as text for a person
/// or as JSON for a log collector (`serve --log-format`).
///
/// Text keeps the lines `serve` always wrote: a request as `TIME METHOD PATH STATUS MS ms
/// ACCOUNT`, anything else as `serve: MESSAGE` with its metadata as `key=value`. JSON is one
/// object a line: `time`, `level`, `logger`, `message`, then the metadata's keys by name.
public struct ServeLogHandler: LogHandler {
    /// How lines are written.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let format: Format
    private let clock: WallClock
    private let write: @Sendable (String) -> Void

    /// A handler for the logger `label`, writing `format` lines to `write` (standard error
    /// by default), stamped by `clock`.
    public init(
        label: String, format: Format, clock: WallClock = .system,
        write: @escaping @Sendable (String) -> Void = ServeLogHandler.writeToStandardError
    ) {
        self.label = label
        self.format = format
        self.clock = clock
        self.write = write
    }

    /// Writes `line` on standard error; a line nobody can take (the reader of a pipe gone) is
    /// dropped: `FileHandle.write(_:)` would end the process over it (a stopping server's last
    /// line, once its parent had gone, ended in a crash that never exited).
    public static func writeToStandardError(_ line: String) {
        var line = line
        line.append("\n")
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = metadata.isEmpty ? event.metadata ?? [:] : metadata.merging(event.metadata ?? [:]) { $1 }
        if format == .text, event.message.description == "request", let method = fields["method"], let path = fields["path"],
           let status = fields["status"] {
            return write(Self.requestLine(time: clock.now(), method, path, status, fields["ms"], fields["account"]))
        }
        let time = clock.now().iso8601
        switch format {
        case .json:
            // Members in a fixed order, the same on every line: the four above, then the
            // fields by name.
            var members: [(String, JSONValue)] = [
                ("time", .string(time)), ("level", .string(event.level.rawValue)), ("logger", .string(label)),
                ("message", .string("\(event.message)")),
            ]
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) where !members.contains(where: { $0.0 == key }) {
                let text = "\(value)"
                let json: JSONValue = switch key {
                case "status": Int64(text).map(JSONValue.integer) ?? .string(text)
                case "ms": Double(text).map(JSONValue.double) ?? .string(text)
                default: .string(text)
                }
                members.append((key, json))
            }
            var line: [UInt8] = [UInt8(ascii: "{")]
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                JSONValue.write(string: key, to: &line)
                line.append(UInt8(ascii: ":"))
                value.write(to: &line)
            }
            line.append(UInt8(ascii: "}"))
            write(String(decoding: line, as: UTF8.self))
        case .text:
            let extra = fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            write("serve: \(event.message)\(extra)")
        }
    }

    /// A request's text line, `TIME METHOD PATH STATUS MS ms ACCOUNT`, put together as bytes:
    /// one a request, so no interpolation.
    private static func requestLine(
        time: Timestamp, _ method: Logger.MetadataValue, _ path: Logger.MetadataValue, _ status: Logger.MetadataValue,
        _ milliseconds: Logger.MetadataValue?, _ account: Logger.MetadataValue?
    ) -> String {
        var line: [UInt8] = []
        line.reserveCapacity(96)
        time.writeISO8601(to: &line)
        for field in [method, path, status, milliseconds] {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: text(of: field).utf8)
        }
        line.append(contentsOf: " ms ".utf8)
        line.append(contentsOf: text(of: account).utf8)
        return String(decoding: line, as: UTF8.self)
    }

    /// A field's text as interpolation writes it; `-` for none.
    private static func text(of value: Logger.MetadataValue?) -> String {
        switch value {
        case .string(let text): text
        case let value?: value.description
        case nil: "-"
        }
    }
}
