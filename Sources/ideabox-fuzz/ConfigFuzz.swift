import IdeaBoxConfig

/// The config file's text through `ConfigFile.parse` (TOMLKit underneath, then every key
/// checked): any text must give a config and its problems, never a crash.
enum ConfigFuzz {
    /// Parses `bytes` as the file's text, as `ConfigFile.load` reads it.
    static func run(_ bytes: [UInt8]) {
        _ = ConfigFile.parse(String(decoding: bytes, as: UTF8.self))
    }
}
