#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `cachechain-fuzz` as built with the package (without libFuzzer): writes seed corpora, replays inputs
/// (regression files, libFuzzer findings), and smoke-tests every target with random mutations of its seeds.
/// Built by `scripts/fuzz.sh` with `-sanitize=fuzzer -DCACHECHAIN_LIBFUZZER`, it hands over to libFuzzer
/// instead (see `runLibFuzzer()`).
///
///     cachechain-fuzz list
///     cachechain-fuzz seeds DIR                 # DIR/<target>/seed-<n> for every target
///     cachechain-fuzz replay TARGET PATH...     # each file, or every file of each directory
///     cachechain-fuzz smoke TARGET [COUNT]      # the seeds and COUNT mutations of them (default 10,000)
///
/// Exit status 0 when every input ran (a crash ends the process, as under libFuzzer), 64 for bad usage.
@main
struct FuzzCommand {
    static func main() {
        #if CACHECHAIN_LIBFUZZER
        exit(runLibFuzzer())
        #else
        runCommand()
        #endif
    }

    static func runCommand() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let context = FuzzContext.make()
        defer { try? FileManager.default.removeItem(atPath: context.directory) }
        switch (arguments.first, arguments.count) {
        case ("list", 1):
            for target in FuzzTarget.allCases { print(target.rawValue) }
        case ("seeds", 2):
            writeSeeds(to: arguments[1], context: context)
        case ("replay", 3...):
            guard let target = FuzzTarget(rawValue: arguments[1]) else { usage("unknown target \(arguments[1])") }
            let count = replay(target, paths: Array(arguments.dropFirst(2)), context: context)
            print("\(target.rawValue): \(count) input(s) replayed, no crash")
        case ("smoke", 2...3):
            guard let target = FuzzTarget(rawValue: arguments[1]) else { usage("unknown target \(arguments[1])") }
            guard let count = arguments.count == 3 ? Int(arguments[2]) : 10_000, count >= 0 else { usage("COUNT must be a number") }
            var mutator = FuzzMutator(seed: 0x5EED)
            let seeds = target.seeds(context: context)
            guard !seeds.isEmpty else { usage("\(target.rawValue) has no seed (is OpenSSL usable?)") }
            let accepted = seeds.filter { target.run($0, context: context) }.count
            var acceptedMutations = 0
            for _ in 0..<count where target.run(mutator.mutate(seeds), context: context) { acceptedMutations += 1 }
            print("\(target.rawValue): \(accepted) of \(seeds.count) seed(s) and \(acceptedMutations) of \(count) mutation(s) accepted, no crash")
        default:
            usage("expected list, seeds DIR, replay TARGET PATH... or smoke TARGET [COUNT]")
        }
    }

    static func writeSeeds(to directory: String, context: FuzzContext) {
        for target in FuzzTarget.allCases {
            let folder = "\(directory)/\(target.rawValue)"
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (index, seed) in target.seeds(context: context).enumerated() {
                _ = FileManager.default.createFile(atPath: "\(folder)/seed-\(index)", contents: Data(seed))
            }
        }
    }

    static func replay(_ target: FuzzTarget, paths: [String], context: FuzzContext) -> Int {
        var count = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { usage("\(path): no such file") }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { "\(path)/\($0)" }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(Array(data), context: context)
                count += 1
            }
        }
        return count
    }

    static func usage(_ problem: String) -> Never {
        FileHandle.standardError.write(Data("cachechain-fuzz: \(problem)\n".utf8))
        exit(64)
    }
}
