import IdeaBoxConfig

/// The config file's text through `ConfigFile.parse` (`TOMLParser` underneath, then every key
/// checked): any text must give a config and its problems, never a crash; and a file with no
/// problem, written as `ideabox config show` writes it, must read back to the same settings.
enum ConfigFuzz {
    /// Parses `bytes` as the file's text, as `ConfigFile.load` reads it.
    static func run(_ bytes: [UInt8]) {
        let (config, problems) = ConfigFile.parse(String(decoding: bytes, as: UTF8.self))
        guard problems.isEmpty else { return }
        let readBack = ConfigFile.parse(config.fileText)
        precondition(readBack.problems.isEmpty && readBack.config.fileText == config.fileText, "config show's file reads back differently: \(readBack.problems)")
    }
}
