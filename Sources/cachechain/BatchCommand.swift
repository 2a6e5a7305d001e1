import ArgumentParser
import CacheChain
import CacheChainBatch
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `cachechain batch`: the JSON-lines protocol (version 1) on stdin/stdout.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Perform HTTP requests read as JSON lines on stdin; write one JSON line per reply on stdout.",
        discussion: """
            Protocol version 1 (a stable interface, documented in the README). Send \
            {"type":"hello","protocol":1} first; cachechain answers with one hello line, then one line per \
            {"type":"request",…} in any order (requests run concurrently, at most --max-in-flight at a \
            time: with that many in flight no further line is read until one is answered), and exits 0 \
            after {"type":"end"} or end of input once the requests in flight have been answered. A request \
            keeps its slot until its reply is written, so a peer that reads slowly holds the input back \
            instead of growing memory. A body over --max-inline-body bytes is not inlined: it goes to a \
            file in --body-dir (the reply's "body_file"), or the reply is a body-too-large error. stdout \
            carries protocol lines only; logs go to stderr. One cache serves the whole session.

            A cache directory on a full or read-only disk does not stop the session: the cache is opened \
            read-only (hits are served, misses fetched without storing) or, when it cannot even be read, not at \
            all; a warning goes to stderr and the hello's config says so.

            Exit codes: 0 after end of session; 1 runtime failure (e.g. the cache directory cannot be created \
            or the key file cannot be used); 64 invalid options.

            Example:
              printf '%s\\n' '{"type":"hello","protocol":1}' \\
                '{"type":"request","id":1,"url":"https://example.com/"}' \\
                '{"type":"end"}' | cachechain batch

            """
    )

    @OptionGroup var pipeline: PipelineOptions

    @Option(
        name: .customLong("max-in-flight"),
        help: ArgumentHelp(
            "The most requests performed at the same time; 0 for no limit. Replies take at most about this × 3 × "
                + "--max-inline-body of memory (8 × 3 × 8 MiB = 192 MiB by default).",
            valueName: "n"
        )
    )
    var maximumInFlight: Int = BatchRunner.defaultMaximumInFlight

    @Option(
        name: .customLong("max-inline-body"),
        help: ArgumentHelp("The largest response body inlined in a reply line, in bytes or with a K, M or G suffix.", valueName: "size")
    )
    var maximumInlineBodySize = ByteCount(BatchBodyLimit.defaultMaximumInlineSize)

    /// `--max-inline-body` in bytes.
    var maximumInlineBody: Int { maximumInlineBodySize.bytes }

    @Option(
        name: .customLong("body-dir"),
        help: ArgumentHelp(
            "An existing directory for larger bodies, one file each (mode 0600; the reply's \"body_file\", yours to "
                + "delete); without it they are a body-too-large error reply.",
            valueName: "dir"
        )
    )
    var bodyDirectory: String?

    func validate() throws {
        if maximumInFlight < 0 { throw ValidationError("--max-in-flight must be 0 (no limit) or more") }
        if maximumInlineBody < 0 { throw ValidationError("--max-inline-body must be 0 or more bytes") }
        var isDirectory: ObjCBool = false
        if let bodyDirectory,
            !FileManager.default.fileExists(atPath: bodyDirectory, isDirectory: &isDirectory) || !isDirectory.boolValue
                || !FileManager.default.isWritableFile(atPath: bodyDirectory)
        {
            throw ValidationError("--body-dir \(bodyDirectory): no such writable directory")
        }
    }

    /// The hello's `config`: the pipeline (as ``PipelineOptions/pipelineDescription(of:storageNote:)`` describes
    /// it), the in-flight limit and where large bodies go, for people.
    /// - Parameter pipelineDescription: The pipeline's description.
    /// - Returns: The description.
    func sessionDescription(pipelineDescription: String) -> String {
        let limit = maximumInFlight == 0 ? "no limit on requests in flight" : "at most \(maximumInFlight) requests in flight"
        let bodies = "bodies over \(maximumInlineBody) bytes " + (bodyDirectory.map { "written to files in \($0)" } ?? "refused (body-too-large)")
        return "\(pipelineDescription); \(bodies); \(limit)"
    }

    func run() async throws {
        let logger = pipeline.makeLogger()
        let client: HTTPCacheClient
        let description: String
        do {
            (client, description) = try pipeline.makeClient(logger: logger)
        } catch {
            throw ToolExitCode.failing("Error: cannot open the cache: \(error)")
        }
        signal(SIGPIPE, SIG_IGN)  // a reader that goes away makes writes fail with EPIPE, not kill us
        let hello = BatchHello(version: CacheChainCommand.version, config: sessionDescription(pipelineDescription: description))
        logger.info("batch session started", metadata: ["config": "\(hello.config)"])
        let output = FileDescriptorOutput()
        let executor = BatchExecutor(client: client, bodyLimit: BatchBodyLimit(maximumInlineSize: maximumInlineBody, fileDirectory: bodyDirectory))
        await BatchRunner(executor: executor, hello: hello, logger: logger, maximumInFlight: maximumInFlight)
            .run(lines: FileDescriptorLines.lines(), output: output)
        if output.hasFailed {
            logger.error("could not write to stdout; some replies were lost")
            throw ToolExitCode.failure
        }
    }
}
