#if CACHECHAIN_LIBFUZZER
import CLibFuzzerDriver
import Foundation

/// The target libFuzzer drives in this process, named by `CACHECHAIN_FUZZ_TARGET` (`scripts/fuzz.sh` sets
/// it), and the context it runs in: made once, before the first input.
private let selected: (target: FuzzTarget, context: FuzzContext)? = {
    guard let name = ProcessInfo.processInfo.environment["CACHECHAIN_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
        return nil
    }
    return (target, FuzzContext.make())
}()

/// Hands the process to libFuzzer's driver with the selected target as its callback: libFuzzer reads its
/// own options from the command line (`-runs=`, `-max_total_time=`, corpus directories) and reports a crash,
/// a failed precondition or a sanitizer finding with the input that caused it.
/// - Returns: libFuzzer's exit status.
func runLibFuzzer() -> Int32 {
    guard selected != nil else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set CACHECHAIN_FUZZ_TARGET to one of: \(names)\n".utf8))
        return 2
    }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
}

/// libFuzzer's per-input entry point: one input through the selected target. (Whichever `main` the link
/// keeps — SwiftPM's, which calls ``runLibFuzzer()``, or libFuzzer's own — inputs arrive here.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let selected else {
        FileHandle.standardError.write(Data("set CACHECHAIN_FUZZ_TARGET (cachechain-fuzz list names them)\n".utf8))
        exit(2)
    }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = selected.target.run(bytes, context: selected.context)
    return 0
}
#endif
