import Foundation

#if IDEABOX_FUZZ
/// libFuzzer's driver: parses libFuzzer's flags from `argv` and calls `callback` with each
/// input. Declared by hand (C's `int LLVMFuzzerRunDriver(int *, char ***, int (*)(const
/// uint8_t *, size_t))`) because the fuzzer runtime ships no module map.
@_extern(c, "LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The program's entry point. SwiftPM links an executable target with
/// `--defsym main=ideabox_fuzz_main`, which replaces the `main` that `-sanitize=fuzzer`
/// links in whole (`libclang_rt.fuzzer`'s `FuzzerMain.o`); so this is the `main` that
/// runs, and it starts libFuzzer's driver itself, as that `main` would have.
@_cdecl("ideabox_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    if let folder = ProcessInfo.processInfo.environment["IDEABOX_FUZZ_SEEDS"] {
        do {
            try SeedWriter.write(into: URL(fileURLWithPath: folder))
            return 0
        } catch {
            FileHandle.standardError.write(Data("Cannot write the seeds: \(error)\n".utf8))
            return 1
        }
    }
    guard FuzzTarget.chosen != nil else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("Set IDEABOX_FUZZ_TARGET to one of: \(names).\n".utf8))
        return 2
    }
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, fuzzOneInput)
}
#else
/// Built without libFuzzer (a plain `swift build`, which builds every target): says how
/// to build the real one.
@_cdecl("ideabox_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FileHandle.standardError.write(Data("ideabox-fuzz was built without libFuzzer; .ci/fuzz builds and runs it.\n".utf8))
    return 2
}
#endif

/// One input, as libFuzzer hands it over; exported under libFuzzer's name too, so that the
/// binary still works if the runtime's own `main` is the one that runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard let target = FuzzTarget.chosen else { fatalError("IDEABOX_FUZZ_TARGET names no target") }
    target.run(bytes)
    return 0
}
