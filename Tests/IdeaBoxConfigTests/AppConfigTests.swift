import IdeaBoxTUI
import Testing
import IdeaBoxConfig

/// `AppConfig`: the palette a theme and single colors make, and the file `ideabox config
/// show` prints (reading it back is `ConfigFileTests`' business).
@Suite struct AppConfigTests {
    @Test func eachThemeGivesItsPaletteAndNoneGivesNoColor() {
        var config = AppConfig()
        #expect(config.palette == .standard)
        config.theme = .light
        #expect(config.palette == .light)
        config.theme = .none
        #expect(config.palette == nil)
    }

    @Test func aColorSetAloneReplacesTheThemesForThatElementOnly() throws {
        var config = AppConfig()
        config.theme = .light
        config.colors[.accent] = .brightCyan
        let palette = try #require(config.palette)
        #expect(palette.colors[.accent] == .brightCyan)
        #expect(palette.colors[.highlight] == TerminalPalette.light.colors[.highlight])
        // Under `none` no color is drawn, whatever was set one by one.
        config.theme = .none
        #expect(config.palette == nil)
    }

    @Test func theDefaultsFileSaysWhatAnUnsetEditorLinksAndDeviceNameMean() {
        let lines = AppConfig().fileText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(7)) == [
            "theme = \"default\"",
            "sort = \"created\"",
            "times = \"relative\"",
            "mouse = true",
            "# editor: $VISUAL, else $EDITOR, else vi",
            "hyperlinks = \"auto\"",
            "# device-name: the host name",
        ])
        #expect(lines.contains("accent = \"cyan\""))
        #expect(lines.contains("[keys]") && lines.contains("[form-keys]") && lines.contains("[search-keys]"))
    }

    @Test func setValuesAreWrittenQuotedWithTheirQuotesAndBackslashesEscaped() {
        var config = AppConfig()
        config.editor = #"vim -c "set tw=80" C:\tmp"#
        config.hyperlinks = false
        config.deviceName = "書房的 laptop"
        config.theme = .none
        let lines = config.fileText.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"editor = "vim -c \"set tw=80\" C:\\tmp""#))
        #expect(lines.contains("hyperlinks = false"))
        #expect(lines.contains(#"device-name = "書房的 laptop""#))
        // No color at all: every element is the terminal's own.
        #expect(lines.contains(#"accent = "default""#))
    }

    /// A value read from an escape (`editor = "vim\n"`) is written back as one, so the file
    /// `ideabox config show` writes is TOML that reads back the same.
    @Test func controlCharactersAreWrittenAsEscapesAndReadBack() {
        var config = AppConfig()
        config.editor = "vim\n\t\u{1}\u{7F}é"
        #expect(config.fileText.contains(#"editor = "vim\n\t\u0001\u007Fé""#))
        let readBack = ConfigFile.parse(config.fileText)
        #expect(readBack.problems == [])
        #expect(readBack.config.editor == config.editor)
        #expect(readBack.config.fileText == config.fileText)
    }
}
