import IdeaBoxTUI
import IdeaBoxViewModels

/// The settings of `config.toml`, each with its default: what the app starts with when the
/// file is missing or has a problem.
public struct AppConfig: Sendable, Equatable {
    /// The named color themes.
    public enum Theme: String, CaseIterable, Sendable {
        /// Colors for a dark background (the app's look before themes).
        case `default`
        /// Colors for a light background.
        case light
        /// No color at all, as under `NO_COLOR`.
        case none
    }

    /// The order of All Ideas and Completed.
    public enum Sort: String, CaseIterable, Sendable {
        /// Newest first (the specs' order).
        case created
        /// Last changed first.
        case updated
        /// By title, in the person's collation order.
        case title
    }

    /// How the list shows when an idea changed.
    public enum Times: String, CaseIterable, Sendable {
        /// "3h ago".
        case relative
        /// "2026-03-02 10:00", in the person's time zone.
        case absolute
    }

    /// Which key does what in the lists (`[keys]`).
    public var keys = KeyBindings.defaults
    /// Which key does what in the edit form (`[form-keys]`).
    public var formKeys = FormKeys.defaults
    /// Which key does what in the search field (`[search-keys]`).
    public var searchKeys = SearchKeys.defaults

    /// Every context's keys, as the app takes them.
    public var appKeys: AppKeys { AppKeys(list: keys, form: formKeys, search: searchKeys) }
    /// The color theme.
    public var theme = Theme.default
    /// Colors set one by one, over the theme's.
    public var colors: [CellColor: TerminalColor] = [:]
    /// The lists' order at launch.
    public var sort = Sort.created
    /// Relative or absolute times.
    public var times = Times.relative
    /// Whether the app takes the mouse.
    public var mouse = true
    /// The editor for `E` and `ideabox edit`; nil: `$VISUAL`, else `$EDITOR`, else `vi`.
    public var editor: String?
    /// Whether links are sent as OSC 8; nil: as `TERM` says (`TerminalFeatures`).
    public var hyperlinks: Bool?
    /// What this machine's devices are called where none was named by `ideabox device
    /// name`; nil: the host name (with the profile, for a profile other than the default).
    public var deviceName: String?
    /// The API token of the IdeaBox app's container, for `ideabox account sign-in --icloud`
    /// (`icloud-api-token`); nil: none set here.
    public var iCloudAPIToken: String?

    /// Every default.
    public init() {}

    /// The palette the theme and the per-element colors make; nil for no color (`none`).
    public var palette: TerminalPalette? {
        var palette: TerminalPalette
        switch theme {
        case .default: palette = .standard
        case .light: palette = .light
        case .none: return nil
        }
        for (element, color) in colors { palette.colors[element] = color }
        return palette
    }

    /// The settings as a config file that sets every one of them (`ideabox config show`).
    public var fileText: String {
        let quoted = TOMLValue.quoted
        var lines = [
            "theme = \(quoted(theme.rawValue))",
            "sort = \(quoted(sort.rawValue))",
            "times = \(quoted(times.rawValue))",
            "mouse = \(mouse)",
            editor.map { "editor = \(quoted($0))" } ?? "# editor: $VISUAL, else $EDITOR, else vi",
            hyperlinks.map { "hyperlinks = \($0)" } ?? "hyperlinks = \"auto\"",
            "",
            "[colors]",
        ]
        let device: String = deviceName.map { "device-name = \(quoted($0))" } ?? "# device-name: the host name"
        lines.insert(device, at: lines.count - 2)
        let iCloud = iCloudAPIToken.map { "icloud-api-token = \(quoted($0))" } ?? "# icloud-api-token: none (for ideabox account sign-in --icloud)"
        lines.insert(iCloud, at: lines.count - 2)
        let palette = palette ?? TerminalPalette(colors: [:])
        for element in CellColor.allCases where element != .default {
            lines.append("\(element.configName) = \(quoted((palette.colors[element] ?? .default).rawValue))")
        }
        func table<Action>(_ map: KeyMap<Action>) -> [String] {
            ["", "[\(Action.configTable)]"] + Action.allCases.map { action in
                "\(action.rawValue) = [\(map.sequences(for: action).map { quoted(KeyName.name($0)) }.joined(separator: ", "))]"
            }
        }
        lines += table(keys) + table(formKeys) + table(searchKeys)
        return lines.joined(separator: "\n")
    }
}
