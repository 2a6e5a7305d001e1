import ArgumentParser

/// The options of the subcommands that store (`get`, `batch`): capacities, key creation and the Redis backends.
/// The subcommands that only read or remove (`stats`, `ls`, `purge`, `explain`) do not have them, so their help
/// does not list them and they refuse them (exit 64).
struct CacheStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Disk capacity per tier, in bytes or with a K, M or G suffix (e.g. 2G). Default: the capacity recorded "
                + "in the cache directory, else 1G; the capacity used is recorded there (see stats).",
            valueName: "size"
        )
    )
    var diskCapacity: ByteCount?

    @Option(
        help: ArgumentHelp(
            "Memory capacity of the memory and tiered backends, in bytes or with a K, M or G suffix.",
            valueName: "size"
        )
    )
    var memoryCapacity = ByteCount(64 << 20)

    @Flag(help: "Create the --key-file with a new random key (mode 0600) when it does not exist.")
    var createKey = false

    @OptionGroup var redis: RedisOptions

    /// The disk capacity for a cache directory: `--disk-capacity`, else the one recorded there, else 1 GiB.
    /// - Parameter directory: The cache directory.
    /// - Returns: The bytes.
    func diskCapacity(in directory: String) -> Int {
        CapacityRecord.capacity(given: diskCapacity?.bytes, in: directory)
    }
}
