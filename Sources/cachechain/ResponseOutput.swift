import ArgumentParser
import CacheChain
import CacheChainBatch
import CacheChainCurl
import Foundation

/// Where and how `get` writes a response, as curl does: the body, or with `-i` the status line (with its
/// reason phrase) and header fields, a blank line, then the body (with `-I` the head alone); to stdout or the `-o` file; nothing with
/// `--fail` and a status of 400 or more (exit 22).
struct ResponseOutput {
    /// curl's exit code for `--fail` and an HTTP error (`CURLE_HTTP_RETURNED_ERROR`).
    static let httpErrorExitCode = ExitCode(22)

    let options: RequestOptions

    /// The head as `-i` prints it: `HTTP/1.1 200 OK`, each field, a blank line; lines end in CRLF as on the wire.
    /// - Parameter response: The response.
    /// - Returns: The text.
    static func headText(of response: PipelineResponse) -> String {
        let version = response.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self]?.description ?? "HTTP/1.1"
        let status = response.head.status
        let phrase = status.reasonPhrase.isEmpty ? HTTPStatusText.phrase(for: status.code) : status.reasonPhrase
        var text = "\(version) \(status.code)\(phrase.isEmpty ? "" : " " + phrase)\r\n"
        for field in response.head.headerFields { text += "\(field.name.rawName): \(field.value)\r\n" }
        return text + "\r\n"
    }

    /// Writes the response, or fails as `--fail` asks.
    /// - Parameters:
    ///   - response: The response.
    ///   - url: The URL, for messages.
    /// - Throws: `ExitCode(22)` for `--fail` and a status of 400 or more; ``ToolExitCode/failure`` when the
    ///   `-o` file cannot be written.
    func write(_ response: PipelineResponse, url: String) throws {
        let status = response.head.status
        if options.fail, status.code >= 400 {
            let phrase = status.reasonPhrase.isEmpty ? HTTPStatusText.phrase(for: status.code) : status.reasonPhrase
            printError("Error: the requested URL returned error: \(status.code) \(phrase) (\(url))")
            throw Self.httpErrorExitCode
        }
        let handle = try outputHandle()
        defer { if options.output != nil { try? handle.close() } }
        do {
            if options.includeHeaders || options.headOnly { try handle.write(contentsOf: Data(Self.headText(of: response).utf8)) }
            if !options.headOnly { try response.body.forEachChunk { chunk in try handle.write(contentsOf: Data(chunk)) } }
        } catch {
            throw ToolExitCode.failing("Error: cannot write \(options.output ?? "stdout"): \(error)")
        }
    }

    private func outputHandle() throws -> FileHandle {
        guard let path = options.output, path != "-" else { return FileHandle.standardOutput }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ToolExitCode.failing("Error: cannot create the output file \(path)")
        }
        return handle
    }
}
