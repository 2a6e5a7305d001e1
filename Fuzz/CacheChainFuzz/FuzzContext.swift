import CacheChainEncryption
import Foundation

/// What the targets share for a whole run: a scratch directory and the envelope fuzzer's key and template.
struct FuzzContext: Sendable {
    /// A directory of this process's own (removed at the end of a replay; libFuzzer runs leave it in the
    /// temporary directory, where each process reuses one file).
    let directory: String
    /// The file the disk-entry target writes each input to.
    var scratchFile: String { directory + "/entry" }
    /// The envelope fuzzer (`nil` only when OpenSSL cannot make a key, which the replay reports).
    let envelope: EnvelopeFuzzer?

    /// A context in a new directory under `/dev/shm` when it exists (no disk writes), else the temporary one.
    static func make() -> FuzzContext {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        let directory = base + "cachechain-fuzz-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return FuzzContext(directory: directory, envelope: try? EnvelopeFuzzer(sealing: Seeds.entry, spoolDirectory: directory))
    }
}
