package import HTTPTypes

/// The response-head parser as the fuzz targets in `Fuzz/` drive it (package-visible; not API).
package enum CurlFuzzing {
    /// Feeds a header block to a ``CurlResponseHead`` line by line, as libcurl reports header lines (each
    /// with its line break), and returns the head it builds.
    /// - Parameters:
    ///   - block: Raw header lines, separated by `\n`.
    ///   - status: The status libcurl would report (`CURLINFO_RESPONSE_CODE`); 0 for the last status line's.
    /// - Returns: The response head.
    package static func responseHead(fromHeaderBlock block: UnsafeRawBufferPointer, status: Int) -> HTTPResponse {
        var head = CurlResponseHead()
        var start = 0
        for index in 0..<block.count where block[index] == UInt8(ascii: "\n") {
            head.consume(line: UnsafeRawBufferPointer(rebasing: block[start...index]))
            start = index + 1
        }
        if start < block.count { head.consume(line: UnsafeRawBufferPointer(rebasing: block[start...])) }
        return head.response(status: status)
    }
}
