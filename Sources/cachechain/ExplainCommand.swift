import ArgumentParser
import CacheChain
import Foundation

/// `cachechain explain URL`: why the stored response of a URL is fresh or stale, in plain words.
struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain why a URL's stored response is fresh or stale: lifetime, age, directives, validators.",
        discussion: """
            Uses the same RFC 9111 rules as the cache (private cache, current time). To see why a response \
            was not stored at all, run `cachechain get URL`: its decision trace gives the storability verdict.

            Read-only: a directory without a cache is an error (exit 1), and nothing is created.

            Exit codes: 0 a stored response was explained; 1 nothing is stored for the URL, no cache in the \
            directory, or it cannot be opened; 64 invalid usage.

            Example:
              cachechain explain https://example.com/
            """
    )

    @Argument(help: "The absolute http or https URL.")
    var url: String

    @OptionGroup var cache: CacheDirectoryOptions

    func validate() throws {
        if (try? HTTPRequest(url: url)) == nil { throw ValidationError("'\(url)' is not an absolute http or https URL") }
        try cache.validateDirectoryCommand("explain")
    }

    func run() async throws {
        try cache.requireCache()
        let listed: [ListedEntry]
        do {
            let key = CacheKey(try HTTPRequest(url: url))
            let storage = try cache.makeConfiguration(recordsKey: false, accessMode: .readOnly).storage
            let engine = CachePolicyEngine()
            let now = Date()
            listed = try await storage.entries(for: key).map {
                ListedEntry(entry: $0, freshness: engine.freshness(of: $0.exchange, now: now))
            }
        } catch {
            throw ToolExitCode.failing("Error: cannot read the cache in \(cache.directory): \(error)")
        }
        guard !listed.isEmpty else {
            print("Nothing is stored for GET \(url).")
            print("Run `cachechain get \(url)` to fetch it: its trace says whether the response is storable and why.")
            if cache.hasUnreadEncryptedTier { print("(HTTPS entries encrypted in \(cache.directory)/encrypted need --encrypt-https --key-file.)") }
            throw ToolExitCode.failure
        }
        for (index, entry) in listed.enumerated() {
            if index > 0 { print("") }
            for line in FreshnessExplanation(entry).lines { print(line) }
        }
    }
}
