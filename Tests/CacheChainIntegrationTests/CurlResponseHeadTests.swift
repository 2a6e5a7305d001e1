@testable import CacheChainCurl
import HTTPTypes
import Testing

@Suite("CurlResponseHead: header lines as libcurl reports them")
struct CurlResponseHeadTests {
    private func head(_ lines: [[UInt8]]) -> HTTPResponse {
        var head = CurlResponseHead()
        for line in lines { line.withUnsafeBytes { head.consume(line: $0) } }
        return head.response(status: 0)
    }

    @Test("field values keep bytes that are not UTF-8 (Latin-1 é is one byte 0xE9)")
    func keepsRawBytes() throws {
        let response = head([
            Array("HTTP/1.1 200 OK\r\n".utf8),
            Array("X-Name: caf".utf8) + [0xE9] + Array("\r\n".utf8),
            Array("X-Utf8: caf\u{E9}\r\n".utf8),
            Array("\r\n".utf8),
        ])
        #expect(response.status.code == 200)
        let latin1 = try #require(response.headerFields.first { $0.name.rawName == "X-Name" })
        #expect(latin1.withUnsafeBytesOfValue { Array($0) } == Array("caf".utf8) + [0xE9])
        let utf8 = try #require(response.headerFields.first { $0.name.rawName == "X-Utf8" })
        #expect(utf8.withUnsafeBytesOfValue { Array($0) } == Array("caf".utf8) + [0xC3, 0xA9])
    }

    @Test("trailer fields after the header section are dropped, never merged into it (RFC 9110 §6.5.1)")
    func trailersDropped() {
        var head = CurlResponseHead()
        for line in [
            "HTTP/1.1 100 Continue\r\n", "\r\n",  // an interim block ends with its empty line too
            "HTTP/1.1 200 OK\r\n", "Cache-Control: max-age=0\r\n", "Transfer-Encoding: chunked\r\n", "\r\n",
            "Cache-Control: max-age=99999\r\n", "X-Checksum: abc\r\n", "\r\n",
        ] {
            Array(line.utf8).withUnsafeBytes { head.consume(line: $0) }
        }
        let response = head.response(status: 0)
        #expect(response.status.code == 200)
        #expect(response.headerFields[values: .cacheControl] == ["max-age=0"])
        #expect(response.headerFields[HTTPField.Name("X-Checksum")!] == nil)
        #expect(head.trailerLines == 2)
    }

    @Test("folded lines join the previous value; the last block wins; malformed lines are skipped")
    func foldingAndBlocks() {
        let response = head([
            Array("HTTP/1.1 100 Continue\r\n".utf8),
            Array("X-Interim: 1\r\n".utf8),
            Array("\r\n".utf8),
            Array("HTTP/1.1 404 Not Found\r\n".utf8),
            Array("X-Long: a\r\n".utf8),
            Array("\t b \r\n".utf8),
            Array("not a header\r\n".utf8),
        ])
        #expect(response.status.code == 404)
        #expect(response.headerFields[HTTPField.Name("X-Interim")!] == nil)
        #expect(response.headerFields[HTTPField.Name("X-Long")!] == "a b")
    }
}
