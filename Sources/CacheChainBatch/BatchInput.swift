import CacheChain
import CacheChainCore
import CacheChainInterceptors
import HTTPTypes

/// What one input line of the batch protocol says, decoded tolerantly: unknown members are ignored.
public enum BatchInput: Sendable, Hashable {
    /// `{"type":"hello","protocol":1,…}`; the caller's protocol version when it gave an integer one.
    case hello(protocolVersion: Int64?)
    /// A valid `{"type":"request",…}`.
    case request(BatchRequest)
    /// A request whose `id` could be read but whose other members are wrong: answered `{"id":N,"error":…}`.
    case invalidRequest(id: Int64, BatchLineError)
    /// `{"type":"end"}`.
    case end
    /// A line that is empty or only white space: skipped.
    case blank
    /// Anything else: answered `{"type":"error","line":N,"error":…}`.
    case malformed(BatchLineError)

    /// Decodes one line (without its line break).
    /// - Parameter line: The line's bytes (UTF-8 JSON).
    public init(line: some Collection<UInt8>) {
        if let length = LineSplitter.overlongLineLength(line) {
            let limit = LineSplitter.defaultMaximumLineLength
            self = .malformed(BatchLineError("the line is \(length) bytes, more than the line-length limit (\(limit) by default); ignored"))
            return
        }
        let bytes = Array(line)
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
            self = .blank
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            self = .malformed(error)
            return
        }
        guard case .object = value else {
            self = .malformed(BatchLineError("expected a JSON object"))
            return
        }
        switch value["type"] {
        case .string("hello")?:
            if case .integer(let version)? = value["protocol"] {
                self = .hello(protocolVersion: version)
            } else {
                self = .hello(protocolVersion: nil)
            }
        case .string("end")?:
            self = .end
        case .string("request")?:
            guard case .integer(let id)? = value["id"] else {
                self = .malformed(BatchLineError("a request needs an integer id"))
                return
            }
            do {
                self = .request(try Self.request(id: id, from: value))
            } catch {
                self = .invalidRequest(id: id, error)
            }
        case .string(let type)?:
            self = .malformed(BatchLineError("unknown message type '\(type)' (expected hello, request or end)"))
        default:
            self = .malformed(BatchLineError("the line has no string member 'type'"))
        }
    }

    private static func request(id: Int64, from value: JSONValue) throws(BatchLineError) -> BatchRequest {
        let method = try parsed(value["method"], "method", default: HTTPRequest.Method.get, { HTTPRequest.Method($0) }) {
            "'\($0)' is not a valid method"
        }
        guard case .string(let url)? = value["url"] else { throw BatchLineError("a request needs a string url") }
        var head: HTTPRequest
        do {
            head = try HTTPRequest(method: method, url: url)
        } catch {
            throw BatchLineError(
                (error as? CacheChainError)?.message ?? "'\(url)' is not an absolute http or https URL"
            )
        }
        head.headerFields = try BatchRequest.fields(from: value["headers"])
        let body: PipelineBody?
        switch value["body"] {
        case nil, .null?: body = nil
        case .string(let text)?: body = PipelineBody(string: text)
        default: throw BatchLineError("body is neither a string nor null")
        }
        return BatchRequest(
            id: id,
            request: PipelineRequest(head: head, body: body),
            cacheMode: try cacheMode(value["cache_mode"]),
            redirect: try redirect(value["redirect"]),
            timeout: try timeout(value["timeout_ms"])
        )
    }

    private static func cacheMode(_ value: JSONValue?) throws(BatchLineError) -> BatchCacheMode {
        try parsed(value, "cache_mode", default: BatchCacheMode.default, { BatchCacheMode(rawValue: $0) }) { text in
            let known = BatchCacheMode.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown cache_mode '\(text)' (expected one of \(known))"
        }
    }

    private static func redirect(_ value: JSONValue?) throws(BatchLineError) -> RedirectInterceptor.Mode {
        try parsed(value, "redirect", default: RedirectInterceptor.Mode.follow, { RedirectInterceptor.Mode(rawValue: $0) }) {
            "unsupported redirect '\($0)' (expected follow or manual)"
        }
    }

    /// The member `name`, a string that `parse` reads; `fallback` when it is absent or null.
    /// - Throws: ``BatchLineError``: `name` is not a string, or `invalid`'s message for a string `parse` rejects.
    private static func parsed<Value>(
        _ value: JSONValue?, _ name: String, default fallback: Value, _ parse: (String) -> Value?, invalid: (String) -> String
    ) throws(BatchLineError) -> Value {
        switch value {
        case nil, .null?: return fallback
        case .string(let text)?:
            guard let result = parse(text) else { throw BatchLineError(invalid(text)) }
            return result
        default: throw BatchLineError("\(name) is not a string")
        }
    }

    private static func timeout(_ value: JSONValue?) throws(BatchLineError) -> Duration? {
        switch value {
        case nil, .null?: return nil
        case .integer(let milliseconds)? where milliseconds > 0: return .milliseconds(milliseconds)
        case .number(let milliseconds)? where milliseconds > 0 && milliseconds.isFinite:
            return .microseconds(Int64(min(milliseconds * 1000, Double(Int64.max / 2))))
        default: throw BatchLineError("timeout_ms is not a positive number of milliseconds")
        }
    }
}
