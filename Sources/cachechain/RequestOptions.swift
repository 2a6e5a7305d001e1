import ArgumentParser
import CacheChain
import Foundation

/// The request options `get` shares with curl: `-X`, `-H`, `-d`, `-A`, `-I`, `-m`, `-L`, and what to do with the
/// reply (`-i`, `-o`, `--fail`), with curl's names and meanings.
struct RequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("X"), .customLong("request")],
        help: ArgumentHelp("The request method (default GET, or POST with --data), as curl's -X.", valueName: "method")
    )
    var method: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "A request header field, 'Name: value' (repeatable); 'Name;' sends it empty, as curl does.",
            valueName: "header"
        )
    )
    var headers: [String] = []

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: ArgumentHelp(
            "A request body (repeatable, joined with &); @file reads a file and @- stdin, without their line "
                + "breaks, as curl's -d. Makes the method POST and the Content-Type "
                + "application/x-www-form-urlencoded unless -X or -H say otherwise.",
            valueName: "data"
        )
    )
    var data: [String] = []

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write the output to this file instead of stdout.", valueName: "file")
    )
    var output: String?

    @Flag(
        name: [.customShort("f"), .customLong("fail")],
        help: "On an HTTP status of 400 or more, print nothing and exit 22 (curl's --fail)."
    )
    var fail = false

    @Flag(
        name: [.customShort("i"), .customLong("include")],
        help: "Print the status line and header fields, a blank line, then the body (curl's -i)."
    )
    var includeHeaders = false

    @Flag(
        name: [.customShort("I"), .customLong("head")],
        help: "Send HEAD and print the status line and header fields only (curl's -I)."
    )
    var headOnly = false

    @Option(
        name: [.customShort("A"), .customLong("user-agent")],
        help: ArgumentHelp("The User-Agent field to send (a -H 'User-Agent: …' wins), as curl's -A.", valueName: "name")
    )
    var userAgent: String?

    @Option(
        name: [.customShort("m"), .customLong("max-time")],
        help: ArgumentHelp("The most seconds the request may take (decimals allowed); then it fails with exit 28, as curl's -m.", valueName: "seconds")
    )
    var maxTime: Double?

    /// `-m` as the client's timeout.
    var timeout: Duration? { maxTime.map { .milliseconds(Int(($0 * 1000).rounded())) } }

    @Flag(
        name: [.customShort("L"), .customLong("location")],
        help: "Follow redirects (301, 302, 303, 307, 308), each hop through the cache, as curl's -L; Authorization and Cookie are not sent to another origin."
    )
    var followRedirects = false

    @Option(
        name: .customLong("max-redirs"),
        help: ArgumentHelp("The most redirects -L follows; one more fails the request.", valueName: "count")
    )
    var maximumRedirects: Int = 10

    func validate() throws {
        if maximumRedirects < 0 { throw ValidationError("--max-redirs must be 0 or more") }
        if let maxTime, !(maxTime > 0) || maxTime > 86_400 { throw ValidationError("-m/--max-time must be more than 0 seconds (at most 86400)") }
        if headOnly, !data.isEmpty { throw ValidationError("-I/--head sends HEAD, which has no body: drop -d or -I") }
        if headOnly, let method, method.uppercased() != "HEAD" { throw ValidationError("-I/--head sends HEAD, not -X \(method): drop one of them") }
        if let userAgent, userAgent.contains("\r") || userAgent.contains("\n") { throw ValidationError("-A: a User-Agent is one line") }
        if let method, HTTPRequest.Method(method) == nil {
            throw ValidationError("-X '\(method)' is not an HTTP method (a token such as GET, POST or QUERY)")
        }
        for header in headers { _ = try Self.field(header) }
    }

    /// The request: method, URL, fields and body.
    /// - Parameter url: The absolute URL.
    /// - Returns: The request.
    /// - Throws: `ValidationError` for a header that is not a field, `CacheChainError` for a URL, a file
    ///   that cannot be read.
    func makeRequest(url: String) throws -> PipelineRequest {
        var head = try HTTPRequest(url: url)
        let body = try requestBody()
        if headOnly {
            head.method = .head
        } else if let method, let parsed = HTTPRequest.Method(method) {
            head.method = parsed
        } else if body != nil {
            head.method = .post
        }
        for header in headers {
            if let field = try Self.field(header) { head.headerFields.append(field) }
        }
        if let userAgent, head.headerFields[.userAgent] == nil { head.headerFields[.userAgent] = userAgent }
        if body != nil, head.headerFields[.contentType] == nil {
            head.headerFields[.contentType] = "application/x-www-form-urlencoded"
        }
        return PipelineRequest(head: head, body: body.map { PipelineBody($0) })
    }

    /// The field of a `-H` argument: `Name: value`, or `Name;` for an empty value; `nil` for `Name:` (curl
    /// removes a field of its own that way; `get` adds none).
    static func field(_ header: String) throws -> HTTPField? {
        let problem = ValidationError("-H '\(header)' is not a header field: write 'Name: value'")
        if header.hasSuffix(";"), let name = HTTPField.Name(String(header.dropLast())) { return HTTPField(name: name, value: "") }
        guard let colon = header.firstIndex(of: ":"), let name = HTTPField.Name(String(header[..<colon])) else { throw problem }
        let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { return nil }
        guard !value.contains("\r"), !value.contains("\n") else { throw problem }
        return HTTPField(name: name, value: value)
    }

    /// The bytes of the `-d` arguments joined with `&`; `nil` without `-d`.
    private func requestBody() throws -> [UInt8]? {
        guard !data.isEmpty else { return nil }
        let parts = try data.map { argument -> [UInt8] in
            guard argument.hasPrefix("@") else { return Array(argument.utf8) }
            let path = String(argument.dropFirst())
            let contents: Data
            if path == "-" {
                contents = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let read = FileManager.default.contents(atPath: path) else {
                    throw ValidationError("-d @\(path): no such readable file")
                }
                contents = read
            }
            return contents.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        }
        return Array(parts.joined(separator: [UInt8(ascii: "&")]))
    }
}
