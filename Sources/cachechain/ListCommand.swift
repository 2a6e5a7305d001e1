import ArgumentParser
import CacheChain

/// `cachechain ls`: one line per stored response.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the stored responses: URL, status, size, when stored, fresh or stale.",
        discussion: """
            Freshness follows RFC 9111 for a private cache, at the current time.

            Read-only: a directory without a cache is an error (exit 1), and nothing is created.

            With --json, one JSON object per line (JSON Lines): method, url, variant, status, bytes, stored_at, \
            fresh, and ttl (seconds of freshness left) or stale_by (seconds); the count line on stderr is left out.

            Exit codes: 0 success; 1 no cache in the directory, or it cannot be opened; 64 invalid usage.

            Example:
              cachechain ls --prefix https://api.example.com/v1/
            """
    )

    @OptionGroup var cache: CacheDirectoryOptions

    @Option(help: ArgumentHelp("Only URLs starting with this prefix (scheme://host/path…).", valueName: "prefix"))
    var prefix: String?

    @Flag(help: "Print one JSON object per entry and line instead of text.")
    var json = false

    func validate() throws {
        try cache.validateDirectoryCommand("ls")
    }

    func run() async throws {
        try cache.requireCache()
        let count: Int
        do {
            count = try await ListedEntry.forEach(in: try cache.makeConfiguration(recordsKey: false, accessMode: .readOnly).storage, prefix: prefix) { print(json ? $0.jsonLine : $0.line) }
        } catch {
            throw ToolExitCode.failing("Error: cannot list the cache in \(cache.directory): \(error)")
        }
        if !json { printError("\(count) entr\(count == 1 ? "y" : "ies")") }
        if cache.hasUnreadEncryptedTier {
            printError("note: \(cache.directory)/encrypted holds encrypted HTTPS entries; add --encrypt-https --key-file to list them")
        }
    }
}
