import ArgumentParser
import CacheChain
import Foundation

/// `cachechain purge`: removes stored responses by URL, URL prefix, date, or all.
struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Remove stored responses: one URL, a URL prefix, a cache group, those stored since a date, the expired ones, or all.",
        discussion: """
            Give exactly one of --url, --prefix, --group, --since, --expired, --stale-older-than or --all. Prints how \
            many entries were removed. --expired removes every stale response (its freshness lifetime has passed); \
            --stale-older-than keeps those stale for less than DURATION, which may still be revalidated cheaply. \
            --group (repeatable) removes the responses whose Cache-Groups names the group (RFC 9875) on the origin \
            --origin names, as a Cache-Group-Invalidation from that origin would.

            Exit codes: 0 success; 1 there is no cache in the directory (nothing is created: check \
            --cache-dir), the cache cannot be opened, or the removal failed; 64 invalid usage (no selector, or \
            more than one). --all works on a full disk: when the cache cannot be opened for lack of space, its \
            files are deleted directly.

            Example:
              cachechain purge --prefix https://api.example.com/v1/
              cachechain purge --since 2026-11-01T00:00:00Z
              cachechain purge --stale-older-than 7d
              cachechain purge --group articles --origin https://news.example
            """
    )

    @OptionGroup var cache: CacheDirectoryOptions

    @Option(help: ArgumentHelp("Remove the stored GET response of this URL (every variant).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("Remove every response whose URL starts with this prefix.", valueName: "prefix"))
    var prefix: String?

    @Option(help: ArgumentHelp("Remove the responses of this cache group (RFC 9875) on --origin; repeatable.", valueName: "name"))
    var group: [String] = []

    @Option(help: ArgumentHelp("The origin (or any URL on it) whose --group responses to remove.", valueName: "url"))
    var origin: String?

    @Option(
        help: ArgumentHelp("Remove the responses stored at or after this ISO 8601 date (e.g. 2026-11-01T00:00:00Z).", valueName: "date"),
        transform: { text in
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw ValidationError("'\(text)' is not an ISO 8601 date such as 2026-11-01T00:00:00Z")
            }
            return date
        }
    )
    var since: Date?

    @Flag(help: "Remove every expired (stale) response.")
    var expired = false

    @Option(
        help: ArgumentHelp("Remove the responses stale for at least this long (90s, 15m, 1h30m, 7d).", valueName: "duration"),
        transform: DurationArgument.parse
    )
    var staleOlderThan: Duration?

    @Flag(help: "Remove everything.")
    var all = false

    func validate() throws {
        let selectors = [url != nil, prefix != nil, !group.isEmpty, since != nil, expired, staleOlderThan != nil, all].count { $0 }
        guard selectors == 1 else {
            throw ValidationError(
                "give exactly one of --url, --prefix, --group, --since, --expired, --stale-older-than or --all (got \(selectors))"
            )
        }
        if !group.isEmpty {
            guard let origin else { throw ValidationError("--group needs --origin <url>: cache groups belong to an origin") }
            guard CacheKey.origin(ofURL: origin) != nil else {
                throw ValidationError("'\(origin)' is not an origin: give a scheme and a host, e.g. https://example.com")
            }
        } else if origin != nil {
            throw ValidationError("--origin is only used with --group")
        }
        if let url, (try? HTTPRequest(url: url)) == nil { throw ValidationError("'\(url)' is not an absolute http or https URL") }
        try cache.validateDirectoryCommand("purge")
    }

    func run() async throws {
        try cache.requireCache()  // a mistyped --cache-dir is an error, not a new empty cache
        let configuration: HTTPCacheClient.Configuration
        do {
            configuration = try cache.makeConfiguration()
        } catch let error as CacheChainError where all && error.code == .storageFailed && DiskStorage.isFullOrReadOnly(error) {
            try removeAllWithoutOpening(because: error)
            return
        } catch {
            throw ToolExitCode.failing("Error: purge failed in \(cache.directory): \(error)")
        }
        do {
            let client = HTTPCacheClient(transport: NoNetworkTransport(), configuration: configuration)
            let before = await client.configuration.storage.usage().entryCount
            printError("purging \(cache.directory) (\(before) entries)…")
            var expiredCount: Int?
            if expired || staleOlderThan != nil {
                expiredCount = try await client.removeExpiredResponses(olderThan: staleOlderThan ?? .zero)
            } else if let url {
                try await client.removeCachedResponse(for: try HTTPRequest(url: url))
            } else if let prefix {
                try await client.removeCachedResponses(urlPrefix: prefix)
            } else if !group.isEmpty, let origin {
                try await client.removeCachedResponses(inGroups: group, origin: origin)
            } else if let since {
                try await client.removeCachedResponses(since: since)
            } else {
                try await client.removeAllCachedResponses()
            }
            let after = await client.configuration.storage.usage().entryCount
            if let expiredCount {
                print("removed \(expiredCount) expired entr\(expiredCount == 1 ? "y" : "ies"); \(after) left")
            } else {
                print("removed \(before - after) entr\(before - after == 1 ? "y" : "ies"); \(after) left")
            }
        } catch {
            throw ToolExitCode.failing("Error: purge failed in \(cache.directory): \(error)")
        }
        if cache.hasUnreadEncryptedTier {
            printError("note: \(cache.directory)/encrypted (encrypted HTTPS entries) was not purged; add --encrypt-https --key-file")
        }
    }

    /// `--all` when the cache cannot be opened (a disk filled by someone else leaves SQLite no room to open its
    /// log): deletes the entry files and the index directly (`DiskStorage.removeAllWithoutOpening`), which
    /// frees their space.
    private func removeAllWithoutOpening(because error: CacheChainError) throws {
        printError("warning: cannot open the cache in \(cache.directory) (\(error.message)); removing its files directly")
        var directories = [cache.directory]
        if cache.encryptHTTPS { directories.append(cache.encryptedTier.directory) }
        var removed = 0
        for directory in directories {
            do {
                removed += try DiskStorage.removeAllWithoutOpening(directory: directory)
            } catch {
                throw ToolExitCode.failing("Error: purge failed in \(directory): \(error)")
            }
        }
        // With their space back, an empty index can usually be created now, for the commands that only read.
        for directory in directories { _ = try? DiskStorage(directory: directory, capacity: CapacityRecord.capacity(given: nil, in: cache.directory)) }
        print("removed every entry (\(removed) entry file\(removed == 1 ? "" : "s") and the index); 0 left")
        if cache.hasUnreadEncryptedTier {
            printError("note: \(cache.directory)/encrypted (encrypted HTTPS entries) was not purged; add --encrypt-https --key-file")
        }
    }
}

/// The transport of the commands that only manage the cache: any request reaching it is a programming error,
/// reported as a transport failure rather than a crash.
struct NoNetworkTransport: HTTPTransport {
    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        throw CacheChainError(.transportFailed, "this command does not use the network")
    }
}
