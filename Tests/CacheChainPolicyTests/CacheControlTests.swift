import CacheChainPolicy
import Testing

@Suite("RFC 9111 §5.2 Cache-Control parsing")
struct CacheControlTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let lines: [String]
        let directive: String
        let expected: DeltaSeconds?
        var testDescription: String { "\(lines) → \(directive)" }
    }

    static let numeric: [Case] = [
        Case(lines: ["max-age=60"], directive: "max-age", expected: .seconds(60)),
        Case(lines: ["MAX-AGE=60"], directive: "max-age", expected: .seconds(60)),
        Case(lines: ["max-age=\"60\""], directive: "max-age", expected: .seconds(60)),
        Case(lines: [" public ,  max-age = 60 "], directive: "max-age", expected: .seconds(60)),
        Case(lines: ["max-age=60", "max-age=60"], directive: "max-age", expected: .seconds(60)),
        Case(lines: ["max-age=60, max-age=120"], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age=60", "max-age=0"], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age=-1"], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age=abc"], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age=1.5"], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age="], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age"], directive: "max-age", expected: .invalid("")),
        Case(lines: ["max-age=99999999999999999999999"], directive: "max-age", expected: .seconds(2_147_483_648)),
        Case(lines: ["no-cache"], directive: "max-age", expected: nil),
        Case(lines: ["private=\"a, max-age=5\", s-maxage=7"], directive: "max-age", expected: nil),
        Case(lines: ["private=\"a, max-age=5\", s-maxage=7"], directive: "s-maxage", expected: .seconds(7)),
        Case(lines: [",,, ,max-age=3,,"], directive: "max-age", expected: .seconds(3)),
        Case(lines: ["=5, max-age=4"], directive: "max-age", expected: .seconds(4)),
    ]

    @Test("delta-seconds values: quoted, duplicated, negative, non-numeric, overflowing", arguments: numeric)
    func deltaSeconds(_ example: Case) {
        let parsed = CacheControl(lines: example.lines).seconds(example.directive)
        switch (parsed, example.expected) {
        case (nil, nil): break
        case (.seconds(let a)?, .seconds(let b)?): #expect(a == b)
        case (.invalid?, .invalid?): break
        default: Issue.record("got \(String(describing: parsed)), expected \(String(describing: example.expected))")
        }
    }

    @Test("flags are case-insensitive and quoted commas do not split directives")
    func flags() {
        let directives = CacheControl(lines: ["No-Store, PRIVATE=\"Set-Cookie, X-A\"", "immutable"])
        #expect(directives.contains("no-store"))
        #expect(directives.contains("private"))
        #expect(directives.contains("immutable"))
        #expect(!directives.contains("x-a"))
        #expect(directives.directives.first { $0.name == "private" }?.value == "Set-Cookie, X-A")
    }

    @Test("max-stale without a value accepts any staleness; with one it is a limit")
    func maxStale() {
        #expect(CacheControl(lines: ["max-stale"]).maxStale == .seconds(DeltaSeconds.maximum))
        #expect(CacheControl(lines: ["max-stale=30"]).maxStale == .seconds(30))
        #expect(CacheControl(lines: ["max-stale=-3"]).maxStale?.value == nil)
        #expect(CacheControl(lines: ["max-age=3"]).maxStale == nil)
    }

    @Test("a 10 KB Cache-Control line is parsed without trouble")
    func hugeHeader() {
        let junk = (0..<1000).map { "x-ext-\($0)=\"v\"" }.joined(separator: ", ")
        let line = junk + ", max-age=42"
        #expect(line.utf8.count > 10_000)
        let directives = CacheControl(lines: [line])
        #expect(directives.seconds("max-age") == .seconds(42))
        #expect(directives.directives.count == 1001)
    }

    /// §5.2 (parsed conservatively): a quoted string that never ends must not hide the restrictive directives
    /// written after its opening quote, and must not lend weight to permissive ones.
    static let unterminated: [(line: String, present: [String], absent: [String])] = [
        ("no-cache=\"abc, max-age=5", ["no-cache"], ["max-age"]),
        ("max-age=60, foo=\"bar, no-store", ["max-age", "foo", "no-store"], []),
        ("foo=\"bar, NO-STORE, max-age=99999", ["foo", "no-store"], ["max-age"]),
        ("private=\"Set-Cookie, no-cache, must-revalidate", ["private", "no-cache", "must-revalidate"], []),
        ("x=\"a, public, immutable, s-maxage=600, proxy-revalidate", ["x", "proxy-revalidate"], ["public", "immutable", "s-maxage"]),
        ("a=\"closed, no-store\", b=\"open, no-store", ["a", "b", "no-store"], []),
        ("a=\"closed, no-store\", max-age=5", ["a", "max-age"], ["no-store"]),
    ]

    @Test("an unterminated quote does not hide a later no-store (or no-cache, private, must-revalidate)", arguments: unterminated)
    func unterminatedQuote(_ example: (line: String, present: [String], absent: [String])) {
        let directives = CacheControl(lines: [example.line])
        for name in example.present { #expect(directives.contains(name), "\(name) in \(example.line)") }
        for name in example.absent { #expect(!directives.contains(name), "\(name) in \(example.line)") }
    }

    @Test("a response whose Cache-Control leaves a quote open before no-store is not stored")
    func unterminatedQuoteNoStore() {
        let verdict = CachePolicyEngine().storability(
            request: request("/"),
            response: response(200, [("Cache-Control", "max-age=60, ext=\"x, no-store")])
        )
        #expect(!verdict.isStorable)
        #expect(verdict.reasons.contains { $0.code == .noStore })
    }

    @Test("the byte-level parser: OWS and tabs, empty elements, an empty name, escaped quotes, non-ASCII values, queried names in any case")
    func byteLevelParsing() {
        let directives = CacheControl(lines: [" \tMax-Age = 60 ,, =5 , ,\tprivate=\"a\\\"b, c\" , ext=\"é,ü\", NO-CACHE"])
        #expect(directives.directives.map(\.name) == ["max-age", "private", "ext", "no-cache"])
        #expect(directives.seconds("MAX-AGE") == .seconds(60))
        #expect(directives.directives[1].value == "a\"b, c")
        #expect(directives.directives[2].value == "é,ü")
        #expect(directives.contains("No-Cache"))
        #expect(CacheControl(lines: [""]).directives.isEmpty)
        #expect(CacheControl(lines: [",,,"]).directives.isEmpty)
    }
}
