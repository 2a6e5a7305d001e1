import CacheChainCore
import CacheChainPolicy
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation

/// A task's `URLRequest` as CacheChain sends it: the request with what its session's configuration adds
/// (`httpAdditionalHeaders`, the default cache policy and timeout), as FoundationNetworking's own HTTP
/// protocol would send it.
struct SessionRequest: Sendable {
    /// The Foundation request (its URL names the current hop after redirects).
    var urlRequest: URLRequest
    /// The pipeline request: head with the merged fields, and the body.
    var pipelineRequest: PipelineRequest
    /// The cache policy: the request's own, or the configuration's when the request keeps the default.
    var cachePolicy: RequestCachePolicy
    /// The whole request's time limit, from `timeoutInterval` or the configuration's
    /// `timeoutIntervalForRequest`; `nil` (no usable interval) leaves the client's.
    var timeout: Duration?

    /// Builds the request a task sends.
    /// - Parameters:
    ///   - request: The task's request.
    ///   - body: The body, already read (see ``read(_:of:)``).
    ///   - configuration: The session's configuration, when the session could be reached.
    /// - Throws: `URLError(.unsupportedURL)` when the request is not an absolute `http`/`https` URL.
    init(_ request: URLRequest, body: Data?, configuration: URLSessionConfiguration?) throws {
        guard var head = request.httpRequest, let scheme = head.scheme?.lowercased(), scheme == "http" || scheme == "https",
            head.authority?.isEmpty == false
        else {
            throw URLError(.unsupportedURL, userInfo: URLError.details("'\(request.url?.absoluteString ?? "nil")' is not an absolute http or https URL", url: request.url))
        }
        // As FoundationNetworking's HTTP protocol does: the configuration's extra headers, unless the request has its own.
        for (name, value) in configuration?.httpAdditionalHeaders ?? [:] {
            guard let name = HTTPField.Name("\(name)"), head.headerFields[name] == nil else { continue }
            head.headerFields.append(HTTPField(name: name, value: "\(value)"))
        }
        if head.method == .post, head.headerFields[.contentType] == nil, let body, !body.isEmpty {
            head.headerFields[.contentType] = "application/x-www-form-urlencoded"
        }
        urlRequest = request
        pipelineRequest = PipelineRequest(head: head, body: body.map { PipelineBody($0) })
        let configuredPolicy = configuration?.requestCachePolicy ?? .useProtocolCachePolicy
        cachePolicy = RequestCachePolicy(request.cachePolicy == .useProtocolCachePolicy ? configuredPolicy : request.cachePolicy)
        // A request keeps URLRequest's default interval (60 s) unless it set its own: then the configuration's applies.
        let interval = request.timeoutInterval != Self.defaultTimeoutInterval
            ? request.timeoutInterval : (configuration?.timeoutIntervalForRequest ?? request.timeoutInterval)
        // 0, negative, infinite or absurd intervals (a year and more) leave the client's own limit.
        timeout = interval > 0 && interval < Self.longestTimeout ? .milliseconds(Int64(interval * 1000)) : nil
    }

    /// `URLRequest`'s default `timeoutInterval`.
    static let defaultTimeoutInterval: TimeInterval = 60
    /// Intervals from this one up leave the client's own limit (365 days).
    static let longestTimeout: TimeInterval = 365 * 24 * 3600

    /// Reads the body a task sends: the task's own (an upload's data, file or stream), else the request's
    /// `httpBody` or `httpBodyStream`. Runs on the task's work queue, never on Swift's cooperative pool.
    /// - Parameters:
    ///   - request: The task's request.
    ///   - knownBody: The body FoundationNetworking keeps for the task.
    /// - Returns: The bytes, or `nil` when there is no body.
    /// - Throws: `URLError(.cannotOpenFile)` for an upload file that cannot be read,
    ///   `URLError(.requestBodyStreamExhausted)` for a body stream that fails.
    static func read(_ request: URLRequest, of knownBody: TaskSurroundings.KnownBody?) throws -> Data? {
        switch knownBody {
        case .data(let data): return data
        case .file(let url):
            do {
                return try Data(contentsOf: url)
            } catch {
                throw URLError(.cannotOpenFile, userInfo: URLError.details("the upload file \(url.path) cannot be read: \(error)", url: request.url))
            }
        case .stream(let stream): return try readAll(stream, url: request.url)
        case nil:
            if let body = request.httpBody { return body }
            if let stream = request.httpBodyStream { return try readAll(stream, url: request.url) }
            return nil
        }
    }

    private static func readAll(_ stream: InputStream, url: URL?) throws -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { pointer in
                pointer.baseAddress.map { stream.read($0, maxLength: pointer.count) } ?? -1
            }
            if count == 0 { return data }
            guard count > 0 else {
                let reason = stream.streamError.map { "\($0)" } ?? "read failed"
                throw URLError(.requestBodyStreamExhausted, userInfo: URLError.details("the request body stream cannot be read: \(reason)", url: url))
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
