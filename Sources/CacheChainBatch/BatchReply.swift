public import CacheChainCore
import CacheChainPolicy
import Foundation
public import HTTPTypes

/// The one line that answers a request: `{"id":N,"status":…}` or `{"id":N,"error":"…"}`.
public struct BatchReply: Sendable, Hashable {
    /// A reply's body member.
    public enum Body: Sendable, Hashable {
        /// `"body"`: the bytes are valid UTF-8 (or there are none).
        case text(String)
        /// `"body_base64"`: the bytes are not valid UTF-8.
        case base64(String)
        /// `"body_file"` and `"body_length"`: the body was larger than the inline limit and was written to
        /// this file (see ``BatchBodyLimit``).
        case file(path: String, length: Int)
    }

    /// What happened to the request.
    public enum Outcome: Sendable, Hashable {
        /// A response, as the application sees it.
        case response(
            status: Int,
            statusText: String,
            headers: [Header],
            body: Body,
            cacheStatus: String,
            trace: [String]
        )
        /// A failure (connection reset, timeout, library error, invalid request).
        case error(String)
    }

    /// One response field: its name as received and its value, one code point per byte.
    public struct Header: Sendable, Hashable {
        /// The field name.
        public var name: String
        /// The value: each byte as the code point of the same number (Latin-1).
        public var value: String

        /// Creates a header.
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// An interim (1xx) response that came before the final one: the reply's `interim` member.
    public struct Interim: Sendable, Hashable {
        /// The status code (e.g. 103).
        public var status: Int
        /// Its fields, as ``Header``s.
        public var headers: [Header]

        /// Creates an interim response.
        /// - Parameters:
        ///   - status: The status code.
        ///   - headers: The fields.
        public init(status: Int, headers: [Header]) {
            self.status = status
            self.headers = headers
        }
    }

    /// The request's id.
    public var id: Int64
    /// What happened.
    public var outcome: Outcome
    /// The interim responses before the final one (`PipelineResponse.interimResponses`), written as the
    /// `interim` member when there are any: `[{"status":103,"status_text":"Early Hints","headers":[…]}]`.
    public var interim: [Interim] = []

    /// Creates a reply.
    /// - Parameters:
    ///   - id: The request's id.
    ///   - outcome: What happened.
    public init(id: Int64, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    /// Creates the reply for a response: status unmodified, fields as the application sees them, the body
    /// as text or base64 (empty for `HEAD`, 204 and 304), the cache status and the decision trace.
    /// - Parameters:
    ///   - id: The request's id.
    ///   - response: The pipeline's response.
    ///   - method: The request's method (a `HEAD` reply has an empty body).
    /// - Throws: `CacheChainError` `body-unreadable` when a file-backed body cannot be read.
    public init(id: Int64, response: PipelineResponse, method: HTTPRequest.Method) throws(CacheChainError) {
        let bytes = Self.carriesBody(response.head.status, method: method) ? try response.body.collect() : []
        let body = String(validating: bytes, as: UTF8.self).map(Body.text) ?? .base64(Data(bytes).base64EncodedString())
        self.init(id: id, response: response, body: body)
    }

    /// Creates the reply for a response whose body was written to a file (``BatchBodyLimit``).
    /// - Parameters:
    ///   - id: The request's id.
    ///   - response: The pipeline's response.
    ///   - bodyFile: The file holding the body.
    public init(id: Int64, response: PipelineResponse, bodyFile: String) {
        self.init(id: id, response: response, body: .file(path: bodyFile, length: response.body.count))
    }

    private init(id: Int64, response: PipelineResponse, body: Body) {
        let status = response.head.status
        let headers = Self.headers(response.head.headerFields)
        self.init(
            id: id,
            outcome: .response(
                status: status.code,
                statusText: status.reasonPhrase.isEmpty ? HTTPStatusText.phrase(for: status.code) : status.reasonPhrase,
                headers: headers,
                body: body,
                cacheStatus: response.cacheStatus.rawValue,
                trace: response.trace.map(\.description)
            )
        )
        interim = response.interimResponses.map { Interim(status: $0.status.code, headers: Self.headers($0.headerFields)) }
    }

    /// Fields as reply headers: names as received, values one code point per byte.
    private static func headers(_ fields: HTTPFields) -> [Header] {
        fields.map { field in Header(field.name.rawName, field.withUnsafeBytesOfValue { latin1(Array($0)) }) }
    }

    /// Whether a reply carries the response's body: not for `HEAD`, 204 and 304.
    static func carriesBody(_ status: HTTPResponse.Status, method: HTTPRequest.Method) -> Bool {
        !(method == .head || status.code == 204 || status.code == 304)
    }

    /// Maps bytes to text with one code point per byte (Latin-1): ASCII stays ASCII, byte `0xE9` is `é`.
    /// - Parameter bytes: The bytes.
    /// - Returns: The text.
    static func latin1(_ bytes: [UInt8]) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return text
    }

    /// The reply as one JSON line (without the line break).
    public var jsonLine: String {
        var members = [JSONValue.Member("id", .integer(id))]
        switch outcome {
        case .error(let text):
            members.append(.init("error", .string(text)))
        case .response(let status, let statusText, let headers, let body, let cacheStatus, let trace):
            members.append(.init("status", .integer(Int64(status))))
            members.append(.init("status_text", .string(statusText)))
            members.append(.init("headers", .array(headers.map { .array([.string($0.name), .string($0.value)]) })))
            if !interim.isEmpty {
                members.append(.init("interim", .array(interim.map { response in
                    .object([
                        .init("status", .integer(Int64(response.status))),
                        .init("status_text", .string(HTTPStatusText.phrase(for: response.status))),
                        .init("headers", .array(response.headers.map { .array([.string($0.name), .string($0.value)]) })),
                    ])
                })))
            }
            switch body {
            case .text(let text): members.append(.init("body", .string(text)))
            case .base64(let encoded): members.append(.init("body_base64", .string(encoded)))
            case .file(let path, let length):
                members.append(.init("body_file", .string(path)))
                members.append(.init("body_length", .integer(Int64(length))))
            }
            members.append(.init("cache_status", .string(cacheStatus)))
            members.append(.init("trace", .array(trace.map { .string($0) })))
        }
        return JSONValue.object(members).jsonText
    }
}
