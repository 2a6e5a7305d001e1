import CacheChainPolicy
import HTTPTypes

/// Collects the header lines libcurl reports and turns the last block into an `HTTPResponse`, and the interim
/// (1xx) blocks before it into ``interimResponses``.
///
/// libcurl reports every header block it reads (interim `100 Continue`, then the final response); a
/// status line starts a new block. The empty line after a block ends it: lines after it that are not a
/// new status line are trailer fields (a chunked body's, RFC 9112 §7.1.2), which libcurl reports through the
/// same callback. They are counted and dropped, never merged into the header section: a trailer must not
/// change how the response is cached (RFC 9110 §6.5.1). Obsolete line folding is joined to the previous
/// value; lines that are not `name: value` with a valid field name are skipped, never fatal.
/// Field values keep their bytes as received (RFC 9110 §5.5 `obs-text` included): a value that is not UTF-8
/// (e.g. Latin-1) reaches the application and the cache unchanged, readable with
/// `HTTPField.withUnsafeBytesOfValue`.
struct CurlResponseHead {
    private(set) var status = 0
    private(set) var fields: [(name: String, value: [UInt8])] = []
    /// Trailer field lines seen (and dropped) after the final header section.
    private(set) var trailerLines = 0
    /// The interim (1xx) header blocks read before the final one, complete, in order.
    private(set) var interimResponses: [HTTPResponse] = []
    private var isSectionComplete = false

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")

    mutating func consume(line bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = Array(bytes[0..<end])
        if line.starts(with: "HTTP/".utf8) {
            fields.removeAll()
            isSectionComplete = false
            let parts = line.split(separator: Self.space, maxSplits: 2)
            status = parts.count >= 2 ? Int(String(decoding: parts[1], as: UTF8.self)) ?? 0 : 0
            return
        }
        guard let first = line.first else {
            if !isSectionComplete, (100..<200).contains(status) {
                interimResponses.append(response(status: status))  // a 1xx block ends: a final response follows
            }
            isSectionComplete = true  // the empty line that ends a header section (or the trailer section)
            return
        }
        guard !isSectionComplete else {
            trailerLines += 1
            return
        }
        if first == Self.space || first == Self.tab, let last = fields.popLast() {
            fields.append((last.name, last.value + [Self.space] + Array(line.trimmingOWS())))
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        fields.append((name, Array(line[(colon + 1)...].trimmingOWS())))
    }

    /// The value of the last field read so far if it has this name (lowercase), else `nil`.
    func lastField(named name: String) -> [UInt8]? {
        guard let last = fields.last, last.name.lowercased() == name else { return nil }
        return last.value
    }

    /// The final response head.
    func response(status finalStatus: Int) -> HTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields {
            guard let fieldName = HTTPField.Name(name) else { continue }
            headerFields.append(HTTPField(name: fieldName, value: value))
        }
        let code = finalStatus > 0 ? finalStatus : status
        return HTTPResponse(status: HTTPResponse.Status(code: min(max(code, 100), 999)), headerFields: headerFields)
    }
}
