import LibrarySync
import Testing

@Suite("LibraryPath")
struct LibraryPathTests {
    @Test("The spec's layout is synced", arguments: ["Favorite.json", "Items/abc.json", "FavoriteItems/x y.json", "Items/繁體.json"])
    func accepted(path: String) throws {
        #expect(try LibraryPath(path).text == path)
    }

    @Test("Paths that could leave the folder are refused", arguments: [
        "../Favorite.json", "Items/../../etc/passwd.json", "/etc/passwd", "/Items/a.json", "Items//a.json", "./Favorite.json",
        "Items/./a.json", "Items/a\u{0}.json", "",
    ])
    func escapes(path: String) {
        #expect(throws: LibraryPath.Refusal.escapes(path)) { try LibraryPath(path) }
    }

    @Test("Paths inside the folder but outside the layout are refused", arguments: [
        "notes.txt", "Items/a.txt", "Items/sub/a.json", "Other/a.json", "Items/.hidden.json", "Items/.json",
        "sync_manifest.json", "Items/.conflicts/a.json", "favorite.json",
    ])
    func outsideLayout(path: String) {
        #expect(throws: LibraryPath.Refusal.notInLayout(path)) { try LibraryPath(path) }
    }

    @Test("A file name over 255 bytes is refused")
    func longName() throws {
        let fits = "Items/" + String(repeating: "繁", count: 83) + ".json"  // 249 + 5 bytes
        #expect(try LibraryPath(fits).fileName.utf8.count == 254)
        let long = "Items/" + String(repeating: "繁", count: 84) + ".json"
        #expect(throws: LibraryPath.Refusal.nameTooLong(long)) { try LibraryPath(long) }
    }

    @Test("The record name is sha256 of the path in lower-case hex")
    func recordName() throws {
        #expect(try LibraryPath("Items/abc.json").recordName == "9d2e0b036a7dff763adc1036bf70230f5017c5f31b113d7127ed90fda3f1fa8f")
        #expect(try LibraryPath("Items/abc.json").fileName == "abc.json")
    }
}
