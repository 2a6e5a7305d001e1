import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("RFC 9111 §4.3 validation: conditional requests, 304 freshening, HEAD freshening")
struct ValidationTests {
    let engine = CachePolicyEngine()

    struct ConditionalCase: Sendable, CustomTestStringConvertible {
        let name: String
        let requestFields: [(String, String)]
        let storedFields: [[(String, String)]]
        let ifNoneMatch: String?
        let ifModifiedSince: String?
        var testDescription: String { name }
    }

    static let conditionals: [ConditionalCase] = [
        ConditionalCase(name: "ETag → If-None-Match", requestFields: [], storedFields: [[("ETag", "\"a\"")]], ifNoneMatch: "\"a\"", ifModifiedSince: nil),
        ConditionalCase(name: "Last-Modified → If-Modified-Since", requestFields: [], storedFields: [[("Last-Modified", date(-60))]], ifNoneMatch: nil, ifModifiedSince: date(-60)),
        ConditionalCase(name: "both validators", requestFields: [], storedFields: [[("ETag", "W/\"a\""), ("Last-Modified", date(-60))]], ifNoneMatch: "W/\"a\"", ifModifiedSince: date(-60)),
        ConditionalCase(name: "several stored ETags are listed", requestFields: [], storedFields: [[("ETag", "\"a\"")], [("ETag", "\"b\"")]], ifNoneMatch: "\"a\", \"b\"", ifModifiedSince: nil),
        ConditionalCase(name: "the application's own tags come first, without duplicates", requestFields: [("If-None-Match", "\"z\", \"a\"")], storedFields: [[("ETag", "\"a\"")]], ifNoneMatch: "\"z\", \"a\"", ifModifiedSince: nil),
        ConditionalCase(name: "the application's * is kept", requestFields: [("If-None-Match", "*")], storedFields: [[("ETag", "\"a\"")]], ifNoneMatch: "*", ifModifiedSince: nil),
        ConditionalCase(name: "the application's If-Modified-Since is kept", requestFields: [("If-Modified-Since", date(-5))], storedFields: [[("Last-Modified", date(-60))]], ifNoneMatch: nil, ifModifiedSince: date(-5)),
        ConditionalCase(name: "a malformed ETag is not sent", requestFields: [], storedFields: [[("ETag", "unquoted")]], ifNoneMatch: nil, ifModifiedSince: nil),
        ConditionalCase(name: "an invalid Last-Modified is not sent", requestFields: [], storedFields: [[("Last-Modified", "0")]], ifNoneMatch: nil, ifModifiedSince: nil),
    ]

    @Test("conditional request table (§4.3.1)", arguments: conditionals)
    func conditional(_ example: ConditionalCase) {
        let conditional = engine.conditionalRequest(
            for: request("/", example.requestFields),
            validating: example.storedFields.map { stored($0) }
        )
        #expect(conditional.method == .get, "RFC 9111 validates with a conditional GET, not HEAD")
        #expect(conditional.headerFields[.ifNoneMatch] == example.ifNoneMatch)
        #expect(conditional.headerFields[.ifModifiedSince] == example.ifModifiedSince)
    }

    struct SelectionCase: Sendable, CustomTestStringConvertible {
        let name: String
        let notModified: [(String, String)]
        let candidates: [StoredExchange]
        let expected: [Int]
        var testDescription: String { name }
    }

    static let selections: [SelectionCase] = [
        SelectionCase(name: "strong ETag selects every strong match", notModified: [("ETag", "\"a\"")], candidates: [stored([("ETag", "\"a\"")]), stored([("ETag", "\"b\"")]), stored([("ETag", "\"a\"")], at: t0.addingTimeInterval(1))], expected: [0, 2]),
        SelectionCase(name: "strong ETag does not match a weak stored tag", notModified: [("ETag", "\"a\"")], candidates: [stored([("ETag", "W/\"a\"")])], expected: []),
        SelectionCase(name: "weak ETag selects the most recent weak match", notModified: [("ETag", "W/\"a\"")], candidates: [stored([("ETag", "\"a\"")], at: t0), stored([("ETag", "W/\"a\"")], at: t0.addingTimeInterval(5))], expected: [1]),
        SelectionCase(name: "an unknown ETag selects nothing", notModified: [("ETag", "\"zz\"")], candidates: [stored([("ETag", "\"a\"")])], expected: []),
        SelectionCase(name: "Last-Modified alone selects the match", notModified: [("Last-Modified", date(-60))], candidates: [stored([("Last-Modified", date(-90))]), stored([("Last-Modified", date(-60))])], expected: [1]),
        SelectionCase(name: "no validator, one candidate → that one", notModified: [], candidates: [stored([("ETag", "\"a\"")])], expected: [0]),
        SelectionCase(name: "no validator, two candidates → none", notModified: [], candidates: [stored([("ETag", "\"a\"")]), stored([("ETag", "\"b\"")])], expected: []),
        SelectionCase(name: "malformed 304 ETag selects nothing", notModified: [("ETag", "garbage")], candidates: [stored([("ETag", "\"a\"")])], expected: []),
    ]

    @Test("which stored responses a 304 freshens (§4.3.4)", arguments: selections)
    func selection(_ example: SelectionCase) {
        #expect(engine.selectForFreshening(notModified: response(304, example.notModified), candidates: example.candidates) == example.expected)
    }

    @Test("a 304 replaces stored fields except Content-Length and content metadata, and restarts the age")
    func freshen() {
        let original = stored([
            ("Cache-Control", "max-age=5"), ("ETag", "\"a\""), ("Content-Length", "6"), ("Content-Type", "text/plain"),
            ("X-Version", "1"), ("Age", "100"), ("Content-Encoding", "gzip"),
        ])
        let later = t0.addingTimeInterval(300)
        let updated = engine.freshen(
            original,
            with: response(304, [
                ("Cache-Control", "max-age=60"), ("ETag", "\"a\""), ("Content-Length", "0"), ("Content-Type", "text/html"),
                ("X-Version", "2"), ("X-New", "yes"), ("Connection", "X-New"), ("Content-Encoding", "br"),
            ]),
            requestTime: later,
            responseTime: later
        )
        let fields = updated.response.headerFields
        #expect(fields[.cacheControl] == "max-age=60")
        #expect(fields[HTTPField.Name("X-Version")!] == "2")
        #expect(fields[HTTPField.Name("X-New")!] == nil, "fields named in Connection are hop-by-hop")
        #expect(fields[.contentLength] == "6")
        #expect(fields[.contentType] == "text/plain")
        #expect(fields[.contentEncoding] == "gzip")
        #expect(fields[.age] == nil, "the old Age no longer applies")
        #expect(fields[.date] == HTTPDate.format(later), "a missing Date is supplied from the 304's arrival")
        #expect(updated.status == .ok)
        let report = engine.freshness(of: updated, now: later.addingTimeInterval(30))
        #expect(report.isFresh)
        #expect(report.currentAge == 30)
    }

    @Test("HEAD freshens a stored GET when validators agree, and contradicts it when they differ (§4.3.5)", arguments: [
        ([("ETag", "\"a\""), ("Content-Length", "9"), ("Cache-Control", "max-age=99")], true),
        ([("ETag", "\"b\"")], false),
        ([("Content-Length", "10")], false),
        ([("Last-Modified", date(-1))], false),
        ([("Cache-Control", "max-age=99")], true),
    ])
    func headFreshening(_ headFields: [(String, String)], _ freshens: Bool) {
        let original = stored([("ETag", "\"a\""), ("Content-Length", "9"), ("Last-Modified", date(-100)), ("Cache-Control", "max-age=1")])
        let result = engine.freshenWithHead(original, headResponse: response(200, headFields), requestTime: t0, responseTime: t0)
        #expect((result != nil) == freshens)
        if let result, headFields.contains(where: { $0.1 == "max-age=99" }) {
            #expect(result.response.headerFields[.cacheControl] == "max-age=99")
        }
    }
}

extension StoredExchange {
    var status: HTTPResponse.Status { response.status }
}
