import Glibc
import IdeaBoxFoundation
import Testing

/// The process's limit on open files and what is left of it.
@Suite struct FileLimitTests {
    @Test("The files open now are counted, and what is available is the limit less them")
    func openFilesAreCounted() throws {
        let opened = (0..<50).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { opened.forEach { close($0) } }
        #expect(opened.allSatisfy { $0 >= 0 })
        // Other suites open and close files meanwhile: at least these 50 are counted.
        #expect(FileLimit.openNow >= 50)
        #expect(FileLimit.available <= FileLimit.current - 50)
    }
}
