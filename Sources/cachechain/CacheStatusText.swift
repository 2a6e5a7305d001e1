import CacheChain

extension CacheStatus {
    /// The status in capitals, as the subcommands print it (`MISS`, `HIT`, `REVALIDATED`…).
    var label: String { rawValue.uppercased() }
}
