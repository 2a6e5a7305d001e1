import ArgumentParser

/// `cachechain`: the command-line face of CacheChain. Each capability is a subcommand; they share the
/// pipeline options of ``PipelineOptions`` through `@OptionGroup`.
@main
struct CacheChainCommand: AsyncParsableCommand {
    /// The tool's version, reported by `--version` and in the batch protocol's hello: the package's version, the
    /// newest released section of CHANGELOG.md (`CLIVersionTests` checks they agree).
    static let version = "0.2.0"

    static let configuration = CommandConfiguration(
        commandName: "cachechain",
        abstract: "An RFC 9111 HTTP cache in front of libcurl, from the command line.",
        discussion: """
            Start with `cachechain demo`. `get`, `stats`, `ls`, `purge` and `explain` work on a persistent \
            cache directory (--cache-dir; default $XDG_CACHE_HOME/cachechain or ~/.cache/cachechain); \
            `batch` drives a cache from any language through JSON lines.

            Exit codes: 0 success; 1 runtime failure (network, cache directory, key file, or nothing \
            stored where that is the question); 22 get --fail and an HTTP status of 400 or more (curl's \
            code); 28 get -m and the request took longer (curl's code); 47 get -L and more redirects than \
            --max-redirs (curl's code); 64 invalid usage (bad or conflicting \
            options, or an option the subcommand does not take).

            Sizes (--disk-capacity, --memory-capacity, --max-inline-body) take bytes or a K, M or G suffix \
            (powers of 1024): 512M, 2G.

            Shell completion: cachechain --generate-completion-script bash (or zsh, fish) prints a script; \
            e.g. cachechain --generate-completion-script bash > /etc/bash_completion.d/cachechain, or for \
            zsh into a directory of your $fpath as _cachechain.
            """,
        version: version,
        subcommands: [
            DemoCommand.self, GetCommand.self, StatsCommand.self, ListCommand.self, PurgeCommand.self,
            ExplainCommand.self, BatchCommand.self,
        ]
    )
}
