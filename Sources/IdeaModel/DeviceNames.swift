import Foundation

/// What people call the devices of an account, as this device knows them: every surface
/// that says who wrote a value (the history, the conflict log, `log`, `show`, the form)
/// names a device by these words, never by its id.
///
/// A device's name travels with the records it writes (`deviceName`); a device whose
/// records came without one (an older IdeaBox, another client) is "another device".
public struct DeviceNames: Sendable, Equatable {
    /// The most characters a device name has.
    public static let maximumLength = 64

    /// This device's id: it is "this device", whatever its name.
    public var thisDevice: String
    /// The names of other devices, by id.
    public var names: [String: String]

    /// The names `names` gives, `thisDevice` being this device.
    public init(thisDevice: String, names: [String: String] = [:]) {
        self.thisDevice = thisDevice
        self.names = names
    }

    /// How `deviceId` reads in `language`: "this device", its name, "the samples" for the
    /// seeded samples, or "another device" for one that never said its name.
    public func name(of deviceId: String, in language: Language) -> String {
        let english = language == .english
        if deviceId == thisDevice { return english ? "this device" : "這台裝置" }
        if SyncOrder.isSampleWriter(deviceId) { return english ? "the samples" : "範例" }
        if let name = names[deviceId] { return name }
        return english ? "another device" : "另一台裝置"
    }

    /// Where `deviceId` wrote, in `language`: "on laptop", "on this device", "on another device".
    public func on(_ deviceId: String, in language: Language) -> String {
        let name = name(of: deviceId, in: language)
        return language == .english ? "on \(name)" : "在\(Self.spaced(name))上"
    }

    /// `name` with the spaces Chinese text puts around a word in Latin letters.
    public static func spaced(_ name: String) -> String {
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last else { return name }
        let isLatin = { (scalar: Unicode.Scalar) in scalar.isASCII }
        return (isLatin(first) ? " " : "") + name + (isLatin(last) ? " " : "")
    }

    /// `text` as a device name: trimmed, one line of 1 to 64 characters without control
    /// characters; nil if it cannot be one.
    public static func normalized(_ text: String) -> String? {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= maximumLength,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" })
        else { return nil }
        return name
    }

    /// The name a device has until a person gives it one: the machine's host name, with
    /// the profile beside it for a profile other than the default (two profiles on one
    /// machine are two devices).
    public static func defaultName(hostName: String, profile: String, defaultProfile: String) -> String {
        let host = normalized(hostName.split(separator: ".").first.map(String.init) ?? "") ?? "IdeaBox"
        guard profile != defaultProfile else { return host }
        return normalized("\(host) (\(profile))") ?? host
    }
}
