import ArgumentParser
import Glibc
import IdeaBoxCommandLine
import IdeaBoxConfig
import IdeaModel
import IdeaStore

extension IdeaBoxCommand {
    /// `ideabox device name [NEW]`: what the account's other devices call this one.
    struct Device: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "device", abstract: .english("This device: the name other devices know it by.", chinese: "這台裝置：其他裝置認得它的名稱。"), subcommands: [Name.self])
    }
}

extension IdeaBoxCommand.Device {
    /// `ideabox device name [NEW]`: prints this device's name, or gives it a new one.
    struct Name: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "name",
            abstract: .english("Print this device's name, or give it a new one; it goes with the ideas it sends.", chinese: "顯示這台裝置的名稱，或給它新名稱；名稱會隨它送出的靈感一起傳送。"),
            discussion: .english("""
                Other devices say "on laptop" in the history, the conflict log, `log` and `show` for what this device \
                wrote. A name given here wins over the config file's device-name; without either, the name is the host \
                name (with the profile beside it, for a profile other than "default").
                """, chinese: "其他裝置在歷史、衝突紀錄、`log` 與 `show` 中會以「在 laptop 上」稱呼這台裝置寫下的內容。在這裡給的名稱優先於設定檔的 device-name；兩者都沒有時，名稱是主機名稱（不是 \"default\" 的設定檔會在旁邊加上設定檔名稱）。"))

        @Argument(help: .english("The new name: one line of 1 to 64 characters (default: print the current name).", chinese: "新名稱：一行 1 到 64 個字元（預設：顯示目前的名稱）。"))
        var name: String?
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            guard let name else {
                let chosen = (try? context.requireExistingData(store)) == nil
                    ? nil : try context.openRepository(store).chosenDeviceName()
                print(try chosen ?? context.defaultDeviceName(store))
                return
            }
            guard let normalized = DeviceNames.normalized(name) else { throw IdeaStoreError.invalidDeviceName(name) }
            try context.openRepository(store, seedsSamples: false).chooseDeviceName(normalized)
            print(DeviceText.named(normalized, context.language))
        }
    }
}

extension CommandContext {
    /// The name this profile's device goes by where `ideabox device name` gave it none: the
    /// config file's `device-name`, else the host name (with the profile, for another than
    /// the default).
    func defaultDeviceName(_ options: StoreOptions) throws -> String {
        if let configured = ConfigFile.load(environment: environment).config.deviceName { return configured }
        var buffer = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count - 1) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return DeviceNames.defaultName(
            hostName: host, profile: try location(options).profile, defaultProfile: DataLocation.defaultProfile)
    }
}

/// The device command's own words.
enum DeviceText {
    /// A new name was given.
    static func named(_ name: String, _ language: Language) -> String {
        switch language {
        case .english: "This device is now called \(name); other devices learn it with the next change it sends."
        case .traditionalChinese: "這台裝置現在叫作 \(name)；其他裝置會在它送出下一筆變更時得知"
        }
    }
}
