import CacheChainPolicy
import Foundation
import Testing

@Suite("RFC 9110 §5.6.7 HTTP-date")
struct HTTPDateTests {
    static let valid: [(String, TimeInterval)] = [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
        ("Friday, 01-Jan-21 00:00:00 GMT", 1_609_459_200),
        ("sun, 06 nov 1994 08:49:37 GMT", 784_111_777),
        ("SUN, 06 NOV 1994 08:49:37 GMT", 784_111_777),
        ("Wed, 31 Dec 2025 23:59:60 GMT", 1_767_225_600),
        (" Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
    ]

    @Test("all three formats parse to the same instant", arguments: valid)
    func parses(_ text: String, _ epoch: TimeInterval) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: epoch))
    }

    static let invalid = [
        "0", "-1", "", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 PST",
        "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", String(repeating: "9", count: 10_000),
        "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:3x GMT", "Sun, 06 Nov 1994 08:49:37 GMX",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun; 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT",
    ]

    @Test("invalid dates, including 0 and -1, do not parse", arguments: invalid)
    func rejects(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    /// RFC 9110 §5.6.7: each format's tokens are separated by exactly one SP (asctime pads a one-digit day
    /// with a second one); names and `GMT` are read case-insensitively (RFC 9111 §4.2).
    static let grammar: [(String, TimeInterval?)] = [
        ("Sun, 06 Nov 1994 08:49:37 gmt", 784_111_777),
        ("sunday, 06-nov-94 08:49:37 gmt", 784_111_777),
        ("SUNDAY, 06-NOV-94 08:49:37 GMT", 784_111_777),
        ("SUN NOV  6 08:49:37 1994", 784_111_777),
        ("Sun Nov 06 08:49:37 1994", 784_111_777),
        ("Wed Nov 16 08:49:37 1994", 784_975_777),
        ("Sun, 06 Nov 1994 08:49:37 GMT\t", 784_111_777),
        ("Sun,  06 Nov 1994 08:49:37 GMT", nil),
        ("Sun, 06  Nov 1994 08:49:37 GMT", nil),
        ("Sun, 06 Nov  1994 08:49:37 GMT", nil),
        ("Sun, 06 Nov 1994  08:49:37 GMT", nil),
        ("Sun, 06 Nov 1994 08:49:37  GMT", nil),
        ("Sun,06 Nov 1994 08:49:37 GMT", nil),
        ("Sun,\t06 Nov 1994 08:49:37 GMT", nil),
        ("Sunday,  06-Nov-94 08:49:37 GMT", nil),
        ("Sunday, 06-Nov-94  08:49:37 GMT", nil),
        ("Sunday, 06-Nov-94 08:49:37  GMT", nil),
        ("Sun, 06-Nov-94 08:49:37 GMT", nil),
        ("Sunday, 06-Nov-1994 08:49:37 GMT", nil),
        ("Sun  Nov  6 08:49:37 1994", nil),
        ("Sun Nov   6 08:49:37 1994", nil),
        ("Sun Nov 6 08:49:37 1994", nil),
        ("Sun Nov  6 08:49:37  1994", nil),
        ("Sun Nov  6  08:49:37 1994", nil),
        ("Sun\tNov  6 08:49:37 1994", nil),
    ]

    @Test("one space between tokens in every format; names and GMT in any case", arguments: grammar)
    func grammarTable(_ text: String, _ epoch: TimeInterval?) {
        #expect(HTTPDate.parse(text) == epoch.map { Date(timeIntervalSince1970: $0) }, "\(text)")
    }

    @Test("formatting produces IMF-fixdate that parses back", arguments: [0.0, 784_111_777, 951_825_600, 1_795_000_000, -86_400])
    func roundTrip(_ epoch: TimeInterval) throws {
        let date = Date(timeIntervalSince1970: epoch)
        let text = HTTPDate.format(date)
        #expect(text.hasSuffix(" GMT"))
        #expect(try #require(HTTPDate.parse(text)) == date)
    }

    @Test("the weekday and zero padding are right")
    func format() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_796_684_399.9)) == "Mon, 07 Dec 2026 22:59:59 GMT")  // sub-second parts dropped
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -62_135_596_800)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 253_402_300_799)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        // Past the four digits IMF-fixdate has: the year is written in full.
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 253_402_300_800)) == "Sat, 01 Jan 10000 00:00:00 GMT")
    }
}
