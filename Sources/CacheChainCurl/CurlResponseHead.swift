import HTTPTypes

/// Collects the header lines libcurl reports and turns the last block into an `HTTPResponse`.
///
/// libcurl reports every header block it reads (interim `100 Continue`, then the final response); a
/// status line starts a new block. Obsolete line folding is joined to the previous value; lines that are
/// not `name: value` with a valid field name are counted and skipped, never fatal.
struct CurlResponseHead {
    private(set) var status = 0
    private(set) var fields: [(name: String, value: String)] = []
    private(set) var malformedLines = 0

    mutating func consume(line bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            fields.removeAll()
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            return
        }
        guard !line.isEmpty else { return }
        if line.first == " " || line.first == "\t", let last = fields.popLast() {
            fields.append((last.name, last.value + " " + line.trimmingCharacters(in: " \t")))
            return
        }
        guard let colon = line.firstIndex(of: ":") else {
            malformedLines += 1
            return
        }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")
        fields.append((name, value))
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

extension String {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
