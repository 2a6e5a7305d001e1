import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("ByteRangeRequest: one bytes range, its selection, and If-Range")
struct ByteRangeRequestTests {
    @Test(
        "parsing: one bytes range or nil",
        arguments: [
            ("bytes=0-499", ByteRangeRequest.bounded(first: 0, last: 499)),
            ("bytes=500-", .open(first: 500)),
            ("bytes=-500", .suffix(length: 500)),
            ("Bytes=1-1, ", .bounded(first: 1, last: 1)),
            ("bytes=0-1,2-3", nil), ("items=0-1", nil), ("bytes=5-4", nil), ("bytes=-", nil),
            ("bytes=+1-2", nil), ("bytes=1-2-3", nil), ("bytes 0-1", nil), ("bytes=99999999999999999999999-", nil),
        ] as [(String, ByteRangeRequest?)]
    )
    func parsing(field: String, expected: ByteRangeRequest?) {
        #expect(ByteRangeRequest(rangeField: field) == expected)
    }

    @Test("selection on the boundaries of a 10-byte representation and of an empty one")
    func selection() {
        #expect(ByteRangeRequest.bounded(first: 0, last: 0).selection(inLength: 10) == .bytes(0...0))
        #expect(ByteRangeRequest.bounded(first: 9, last: 20).selection(inLength: 10) == .bytes(9...9))
        #expect(ByteRangeRequest.bounded(first: 10, last: 20).selection(inLength: 10) == .unsatisfiable)
        #expect(ByteRangeRequest.open(first: 10).selection(inLength: 10) == .unsatisfiable)
        #expect(ByteRangeRequest.suffix(length: 11).selection(inLength: 10) == .bytes(0...9))
        #expect(ByteRangeRequest.suffix(length: 0).selection(inLength: 10) == .unsatisfiable)
        #expect(ByteRangeRequest.suffix(length: 3).selection(inLength: 0) == .whole)
        #expect(ByteRangeRequest.open(first: 0).selection(inLength: 0) == .unsatisfiable)
    }

    @Test("If-Range: strong entity tags only; a date only when equal to a strong Last-Modified")
    func ifRange() {
        var fields = HTTPFields()
        fields[.eTag] = "\"a\""
        fields[.lastModified] = "Sun, 06 Nov 1994 08:49:37 GMT"
        fields[.date] = "Sun, 06 Nov 1994 08:49:38 GMT"
        #expect(ByteRangeRequest.ifRangeAllowsRange("\"a\"", stored: fields))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("W/\"a\"", stored: fields))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("\"b\"", stored: fields))
        #expect(ByteRangeRequest.ifRangeAllowsRange("Sun, 06 Nov 1994 08:49:37 GMT", stored: fields))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("Sun, 06 Nov 1994 08:49:36 GMT", stored: fields))
        fields[.date] = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(!ByteRangeRequest.ifRangeAllowsRange("Sun, 06 Nov 1994 08:49:37 GMT", stored: fields), "a weak Last-Modified")
        fields[.eTag] = "W/\"a\""
        #expect(!ByteRangeRequest.ifRangeAllowsRange("\"a\"", stored: fields), "a weak stored tag")
    }
}
