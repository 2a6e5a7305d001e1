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
            {"type":"request",…} in any order (requests run concurrently), and exits 0 after \
            {"type":"end"} or end of input once the requests in flight have been answered. stdout carries \
            protocol lines only; logs go to stderr. One cache serves the whole session.

            Exit codes: 0 after end of session; 1 runtime failure (e.g. the cache directory or the key \
            file cannot be used); 64 invalid options.

            Example:
              printf '%s\\n' '{"type":"hello","protocol":1}' \\
                '{"type":"request","id":1,"url":"https://example.com/"}' \\
                '{"type":"end"}' | cachechain batch

            """
    )

    @OptionGroup var pipeline: PipelineOptions

    func run() async throws {
        let logger = pipeline.makeLogger()
        let client: HTTPCacheClient
        do {
            client = try pipeline.makeClient(logger: logger)
        } catch {
            FileHandle.standardError.write(Data("Error: cannot open the cache: \(error)\n".utf8))
            throw ToolExitCode.failure
        }
        signal(SIGPIPE, SIG_IGN)  // a reader that goes away makes writes fail with EPIPE, not kill us
        let hello = BatchHello(version: CacheChainCommand.version, config: pipeline.pipelineDescription)
        logger.info("batch session started", metadata: ["config": "\(hello.config)"])
        let output = FileDescriptorOutput()
        await BatchRunner(executor: BatchExecutor(client: client), hello: hello, logger: logger)
            .run(lines: FileDescriptorLines.lines(), output: output)
        if output.hasFailed {
            logger.error("could not write to stdout; some replies were lost")
            throw ToolExitCode.failure
        }
    }
}
