import ArgumentParser
import CacheChain
import CacheChainCurl
import Foundation

/// `cachechain get URL`: one GET through the cache in a directory, like `curl` with a persistent cache.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "GET a URL through the cache, like curl: the body on stdout; -v or --trace show what the cache did.",
        discussion: """
            The cache persists in --cache-dir between runs: the first get of a cacheable URL is a MISS, the \
            next a HIT (or REVALIDATED once stale). With --encrypt-https --key-file F, HTTPS responses are \
            stored encrypted in <dir>/encrypted; the first time, add --create-key to create F with a new \
            key. A directory with an encrypted tier is refused without --encrypt-https (its HTTPS responses \
            would be stored in clear), as is a key file that does not hold the tier's key.

            With --backend redis --redis-url URL the cache is a Redis shared by every process and machine \
            given the same URL and --redis-namespace; --backend tiered-redis puts a memory tier in front of \
            it. A Redis that is down, slow or refusing never fails the request: it is fetched from the origin \
            and the trace says why nothing was read or stored.

            Like curl: -X METHOD, -H 'Name: value', -d DATA (@file, @-), -A AGENT, -o FILE, -i (status line, \
            header fields with the cache's Cache-Status (RFC 9211), a blank line, then the body), -I (HEAD, the \
            head only), -L (follow redirects, each hop through the cache), -m SECONDS, --fail, -s/-S, -v (the \
            request sent as '> ' lines, the response's fields as '< ' lines, then the cache's trace as '* ' \
            lines) and -w FORMAT (%{http_code}, %{cache_status}…). Stderr carries only warnings and errors \
            unless -v or --trace ask for more; -s silences it.

            Exit codes: 0 success (any HTTP status without --fail); 1 the request failed (network, TLS) or, \
            with --policy returnCacheDataDontLoad / only-if-cached, nothing usable is stored; 22 with --fail, \
            an HTTP status of 400 or more (curl's code); 28 the request took longer than -m (curl's code); \
            64 invalid usage (an option this subcommand does not take included).

            Example:
              cachechain get https://example.com/ -v
              cachechain get https://example.com/ -s -o page.html -w '%{http_code} %{cache_status}\\n'
              cachechain get https://api.example.com/search -X QUERY -H 'Content-Type: application/json' -d @query.json -i
              cachechain get https://example.com/ --policy returnCacheDataDontLoad
              cachechain get https://example.com/ --backend redis --redis-url redis://127.0.0.1:6379/0
            """
    )

    @Argument(help: "The absolute http or https URL.")
    var url: String

    @OptionGroup var cache: CacheDirectoryOptions

    @OptionGroup var store: CacheStoreOptions

    @Option(
        help: ArgumentHelp(
            "The cache policy: \(RequestCachePolicy.allCases.map(\.rawValue).joined(separator: ", ")), or a Fetch "
                + "cache mode (default, reload, no-cache, force-cache, only-if-cached).",
            valueName: "policy"
        )
    )
    var policy: CachePolicyArgument?

    @Option(
        name: .customLong("cacert"),
        help: ArgumentHelp("A PEM file of certificates or CAs to trust in addition to the system store.", valueName: "file")
    )
    var caFile: String?

    @OptionGroup var request: RequestOptions

    @OptionGroup var output: GetOutputOptions

    /// The Redis options (`--redis-url`, `--redis-namespace`…).
    private var redis: RedisOptions { store.redis }

    func validate() throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else { throw ValidationError("'\(url)' is not an absolute http or https URL") }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--cacert \(caFile): no such readable file")
        }
        try redis.validate(usesRedis: cache.backend.usesRedis, backend: cache.backend.rawValue)
        guard cache.backend.usesDirectory else {
            if cache.keyFile != nil || store.createKey {
                throw ValidationError("--key-file and --create-key are only used by --backend disk and encrypted")
            }
            return
        }
        try cache.validateKeyFile(createKey: store.createKey)
        if !cache.encryptHTTPS { try cache.encryptedTier.refusePlaintextWrites(remedy: "--encrypt-https --key-file <file>") }
    }

    /// The client configuration of the chosen backend.
    func makeConfiguration() throws -> HTTPCacheClient.Configuration {
        switch cache.backend {
        case .redis, .tieredRedis:
            .init(storage: try redis.makeStorage(tiered: cache.backend == .tieredRedis, memoryCapacity: store.memoryCapacity.bytes))
        default: try writableOrFallbackConfiguration()
        }
    }

    /// The cache's configuration; when the cache cannot be written (read-only file system or directory, full
    /// disk), a warning and the cache opened read-only (hits are still served), or no cache at all when it
    /// cannot even be read: the URL is fetched without storing rather than not at all.
    private func writableOrFallbackConfiguration() throws -> HTTPCacheClient.Configuration {
        do {
            let capacity = store.diskCapacity(in: cache.directory)
            let configuration = try cache.makeConfiguration(createKey: store.createKey, capacity: capacity)
            CapacityRecord.record(capacity, in: cache.directory)  // what stats shows, and later runs keep
            return configuration
        } catch let error as CacheChainError where error.code == .storageFailed {
            if let readOnly = try? cache.makeConfiguration(recordsKey: false, accessMode: .readOnly) {
                printError("warning: cannot write the cache in \(cache.directory) (\(error.message)); using it read-only: nothing will be stored")
                return readOnly
            }
            printError("warning: cannot use the cache in \(cache.directory) (\(error.message)); fetching without it: nothing will be stored")
            return HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 0))
        }
    }

    func run() async throws {
        StandardErrorFilter.active = output.filter
        let sent = SentRequestRecorder()
        let client: HTTPCacheClient
        do {
            let transport = CurlTransport(configuration: .init(
                caFile: caFile, caDirectory: caFile == nil ? nil : PipelineOptions.systemCADirectory, recordsHTTPVersion: true
            ))
            var configuration = try makeConfiguration()
            // `-i` shows what the cache did as RFC 9211 says it: `Cache-Status: CacheChain; hit; ttl=540`.
            configuration.outerInterceptors.insert(CacheStatusInterceptor(policy: configuration.policy), at: 0)
            // As curl: a 3xx is the answer unless -L asks to follow it (each hop then goes through the cache).
            configuration.isRedirectFollowingEnabled = request.followRedirects
            configuration.maximumRedirects = request.maximumRedirects
            // `-v` shows the request as it went to the origin (with the validators a revalidation added).
            if output.verbose { configuration.networkInterceptors.append(sent) }
            client = HTTPCacheClient(transport: transport, configuration: configuration)
        } catch {
            throw ToolExitCode.failing("Error: cannot open the cache in \(cache.backend.usesDirectory ? cache.directory : redis.description): \(error)")
        }
        let started = ContinuousClock.now
        let pipelineRequest = try request.makeRequest(url: url)
        let response: PipelineResponse
        do {
            var values = ContextValues()
            if output.showsProgress { values[TransferProgressKey.self] = DownloadProgressLine.report }
            response = try await client.send(pipelineRequest, cachePolicy: policy?.policy, timeout: request.timeout, values: values)
        } catch let error as CacheChainError where error.code == .notInCache {
            throw ToolExitCode.failing("Error: nothing usable is stored for \(url), and the policy does not use the network")
        } catch let error as CacheChainError where error.code == .timedOut && request.maxTime != nil {
            printError("Error: \(pipelineRequest.head.method) \(url) took longer than -m \(request.maxTime ?? 0) s: \(error.message)")
            throw ToolExitCode.timedOut
        } catch let error as CacheChainError where error.code == .tooManyRedirects {
            printError("Error: \(pipelineRequest.head.method) \(url): \(error.message)")
            throw ToolExitCode.tooManyRedirects
        } catch {
            throw ToolExitCode.failing("Error: \(pipelineRequest.head.method) \(url) failed: \(error)")
        }
        if let failure = response.trace.first(where: { $0.code == .storageError }) {
            printError("warning: the response was not stored in \(cache.directory) (\(failure.detail)); it is served all the same")
        }
        let elapsed = ContinuousClock.now - started
        if output.verbose {
            let version = response.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self]?.description ?? "HTTP/1.1"
            let (finalRequest, hops) = sent.split(finalURL: VerboseOutput.finalURL(of: response, requested: VerboseOutput.url(of: pipelineRequest.head)))
            let lines = VerboseOutput.hopLines(hops, version: version)
                + VerboseOutput.requestLines(finalRequest ?? pipelineRequest.head, version: version, fromCache: finalRequest == nil)
                + VerboseOutput.responseLines(response)
                + VerboseOutput.traceLines(response, url: url, prefix: "* ")
                + ["* key: \(CacheKey(pipelineRequest.head))", "* age: \(response.head.headerFields[.age] ?? "0") s, \(response.body.count) bytes, \(elapsed)"]
            for line in lines { printDiagnostic(line) }
        } else if output.trace {
            for line in VerboseOutput.traceLines(response, url: url, prefix: "") { printDiagnostic(line) }
        }
        try ResponseOutput(options: request).write(response, url: url)
        if let format = output.writeOut {
            let text = WriteOut(format: format).text(for: response, request: pipelineRequest.head, url: url, elapsed: ContinuousClock.now - started)
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if response.cacheStatus == .unsatisfiable { throw ToolExitCode.failure }
    }
}
