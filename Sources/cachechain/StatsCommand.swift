import ArgumentParser
import CacheChain
import Foundation

/// `cachechain stats`: what the cache directory holds.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many entries and bytes the cache directory holds, and its capacity.",
        discussion: """
            Read-only: a directory without a cache is an error (exit 1), and nothing is created. The capacity is \
            the one the cache was created with (get or batch --disk-capacity, recorded in the directory; 1G when \
            none was given), unless a later get or batch --disk-capacity changed it.

            Exit codes: 0 success; 1 no cache in the directory, or it cannot be opened; 64 invalid usage.

            Example:
              cachechain stats --cache-dir /var/cache/myapp --json
            """
    )

    @OptionGroup var cache: CacheDirectoryOptions

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        try cache.validateDirectoryCommand("stats")
    }

    func run() async throws {
        try cache.requireCache()
        let recorded = CapacityRecord.read(in: cache.directory)
        let storage: any CacheStorage
        do {
            storage = try cache.makeConfiguration(recordsKey: false, accessMode: .readOnly).storage
        } catch {
            throw ToolExitCode.failing("Error: cannot open the cache in \(cache.directory): \(error)")
        }
        let usage = await storage.usage()
        let encrypted = cache.encryptHTTPS ? "yes (AES-256-GCM, \(cache.directory)/encrypted)" : "no"
        if json {
            let object: [String: Any] = [
                "directory": cache.directory, "entries": usage.entryCount, "bytes": usage.diskBytes,
                "capacity": usage.diskCapacity, "capacity_recorded": recorded != nil, "format": DiskStorage.formatVersion,
                "encrypted_https": cache.encryptHTTPS,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("directory:       \(cache.directory)")
            print("entries:         \(usage.entryCount)")
            print("bytes used:      \(usage.diskBytes) (\(ByteCount(usage.diskBytes).humanReadable))")
            let note = recorded == nil ? ", not recorded: the default" : ""
            print("capacity:        \(usage.diskCapacity) (\(ByteCount(usage.diskCapacity).humanReadable)\(note))")
            print("format version:  \(DiskStorage.formatVersion)")
            print("encrypted HTTPS: \(encrypted)")
        }
        if cache.hasUnreadEncryptedTier {
            printError("note: \(cache.directory)/encrypted holds encrypted HTTPS entries; add --encrypt-https --key-file to count them")
        }
    }
}
