import ArgumentParser

/// `cachechain`: the command-line face of CacheChain. Each capability is a subcommand; they share the
/// pipeline options of ``PipelineOptions`` through `@OptionGroup`.
@main
struct CacheChainCommand: AsyncParsableCommand {
    /// The tool's version, reported by `--version` and in the batch protocol's hello.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "cachechain",
        abstract: "An RFC 9111 HTTP cache in front of libcurl, from the command line.",
        discussion: """
            Exit codes: 0 success; 1 runtime failure; 64 invalid usage (bad or conflicting options).
            """,
        version: version,
        // get, stats, ls, purge, explain and demo (issue #6) slot in here, each with `@OptionGroup var
        // pipeline: PipelineOptions` where it needs a cache.
        subcommands: [BatchCommand.self]
    )
}
