import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("RFC 9111 §4.2 freshness lifetime and age")
struct FreshnessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var mode: CacheMode = .privateCache
        var status = 200
        let fields: [(String, String)]
        let seconds: TimeInterval
        let source: FreshnessLifetime.Source
        var testDescription: String { name }
    }

    static let lifetimes: [Case] = [
        Case(name: "max-age", fields: [("Cache-Control", "max-age=60")], seconds: 60, source: .maxAge),
        Case(name: "quoted max-age", fields: [("Cache-Control", "max-age=\"60\"")], seconds: 60, source: .maxAge),
        Case(name: "max-age wins over Expires", fields: [("Cache-Control", "max-age=60"), ("Expires", date(3600))], seconds: 60, source: .maxAge),
        Case(name: "private cache ignores s-maxage", fields: [("Cache-Control", "s-maxage=5, max-age=60")], seconds: 60, source: .maxAge),
        Case(name: "shared cache prefers s-maxage", mode: .sharedCache, fields: [("Cache-Control", "s-maxage=5, max-age=60")], seconds: 5, source: .sharedMaxAge),
        Case(name: "Expires minus Date", fields: [("Expires", date(120))], seconds: 120, source: .expires),
        Case(name: "Expires in the past", fields: [("Expires", date(-120))], seconds: 0, source: .expires),
        Case(name: "Expires: 0 is already expired", fields: [("Expires", "0")], seconds: 0, source: .invalid),
        Case(name: "unparseable Expires is stale", fields: [("Expires", "tomorrow")], seconds: 0, source: .invalid),
        Case(name: "two different Expires are stale", fields: [("Expires", date(60)), ("Expires", date(120))], seconds: 0, source: .invalid),
        Case(name: "max-age=-1 is stale", fields: [("Cache-Control", "max-age=-1")], seconds: 0, source: .invalid),
        Case(name: "max-age=abc is stale even with Expires", fields: [("Cache-Control", "max-age=abc"), ("Expires", date(600))], seconds: 0, source: .invalid),
        Case(name: "conflicting max-ages are stale", fields: [("Cache-Control", "max-age=60, max-age=3600")], seconds: 0, source: .invalid),
        Case(name: "overflowing max-age is clamped", fields: [("Cache-Control", "max-age=9999999999999")], seconds: 2_147_483_648, source: .maxAge),
        Case(name: "heuristic: 10% of the Last-Modified age", fields: [("Last-Modified", date(-10_000))], seconds: 1000, source: .heuristic),
        Case(name: "heuristic is capped at a day", fields: [("Last-Modified", date(-100 * 86_400))], seconds: 86_400, source: .heuristic),
        Case(name: "no heuristic for 302", status: 302, fields: [("Last-Modified", date(-10_000))], seconds: 0, source: .none),
        Case(name: "public makes 302 heuristically fresh", status: 302, fields: [("Cache-Control", "public"), ("Last-Modified", date(-10_000))], seconds: 1000, source: .heuristic),
        Case(name: "nothing at all", fields: [], seconds: 0, source: .none),
    ]

    @Test("freshness lifetime table (§4.2.1, §4.2.2)", arguments: lifetimes)
    func lifetime(_ example: Case) {
        let engine = CachePolicyEngine(configuration: .init(mode: example.mode))
        let lifetime = engine.freshnessLifetime(of: stored(example.fields, status: example.status))
        #expect(lifetime.seconds == example.seconds)
        #expect(lifetime.source == example.source)
    }

    struct AgeCase: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: [(String, String)]
        let requestDelay: TimeInterval
        let residence: TimeInterval
        let age: TimeInterval
        var testDescription: String { name }
    }

    static let ages: [AgeCase] = [
        AgeCase(name: "resident time only", fields: [], requestDelay: 0, residence: 30, age: 30),
        AgeCase(name: "Age header plus response delay", fields: [("Age", "100")], requestDelay: 2, residence: 10, age: 112),
        AgeCase(name: "apparent age from an old Date", fields: [("Date", date(-50))], requestDelay: 0, residence: 0, age: 50),
        AgeCase(name: "Date in the future does not make age negative", fields: [("Date", date(500))], requestDelay: 0, residence: 5, age: 5),
        AgeCase(name: "corrected age wins over apparent age", fields: [("Date", date(-10)), ("Age", "40")], requestDelay: 0, residence: 0, age: 40),
        AgeCase(name: "invalid Age is ignored", fields: [("Age", "-5")], requestDelay: 0, residence: 3, age: 3),
        AgeCase(name: "non-numeric Age is ignored", fields: [("Age", "old")], requestDelay: 0, residence: 3, age: 3),
        AgeCase(name: "huge Age is clamped", fields: [("Age", "99999999999999999")], requestDelay: 0, residence: 0, age: 2_147_483_648),
        AgeCase(name: "missing Date uses the reception time", fields: [], requestDelay: 4, residence: 1, age: 5),
        // §5.1: a list-based or repeated Age counts its first member; an invalid first member voids the field.
        AgeCase(name: "Age list: the first member counts", fields: [("Age", "7200, 0")], requestDelay: 0, residence: 0, age: 7200),
        AgeCase(name: "Age list without spaces", fields: [("Age", "7200,0")], requestDelay: 0, residence: 0, age: 7200),
        AgeCase(name: "Age twice: the first line counts", fields: [("Age", "7200"), ("Age", "0")], requestDelay: 0, residence: 0, age: 7200),
        AgeCase(name: "Age twice, smaller first", fields: [("Age", "5"), ("Age", "7200")], requestDelay: 0, residence: 0, age: 5),
        AgeCase(name: "Age with an invalid first member is ignored", fields: [("Age", "x, 7200")], requestDelay: 0, residence: 1, age: 1),
        AgeCase(name: "invalid first Age line, valid second: ignored", fields: [("Age", "-1"), ("Age", "7200")], requestDelay: 0, residence: 1, age: 1),
    ]

    @Test("current age table (§4.2.3)", arguments: ages)
    func age(_ example: AgeCase) {
        var exchange = stored(example.fields, sentAt: t0.addingTimeInterval(-example.requestDelay))
        if example.name == "missing Date uses the reception time" { exchange.response.headerFields[.date] = nil }
        let age = CachePolicyEngine().currentAge(of: exchange, now: t0.addingTimeInterval(example.residence))
        #expect(age == example.age)
    }

    @Test("fresh until the lifetime is reached, then stale by the difference")
    func report() {
        let exchange = stored([("Cache-Control", "max-age=10")])
        let engine = CachePolicyEngine()
        let fresh = engine.freshness(of: exchange, now: t0.addingTimeInterval(9))
        #expect(fresh.isFresh)
        #expect(fresh.remainingFreshness == 1)
        let stale = engine.freshness(of: exchange, now: t0.addingTimeInterval(10))
        #expect(!stale.isFresh)
        let staler = engine.freshness(of: exchange, now: t0.addingTimeInterval(25))
        #expect(staler.staleness == 15)
    }

    @Test("changing a stored exchange's response re-reads its Cache-Control, Date and Age")
    func replacedResponse() {
        var exchange = stored([("Cache-Control", "max-age=60")])
        let engine = CachePolicyEngine()
        #expect(engine.freshnessLifetime(of: exchange).seconds == 60)
        #expect(engine.currentAge(of: exchange, now: t0) == 0)
        exchange.response.headerFields[.cacheControl] = "max-age=5"
        exchange.response.headerFields[.age] = "30"
        #expect(engine.freshnessLifetime(of: exchange).seconds == 5)
        #expect(engine.currentAge(of: exchange, now: t0) == 30)
        #expect(!engine.freshness(of: exchange, now: t0).isFresh)
        exchange.response.headerFields[.date] = HTTPDate.format(t0.addingTimeInterval(-100))
        exchange.response.headerFields[.age] = nil
        #expect(engine.currentAge(of: exchange, now: t0) == 100)
        exchange.response = response(200, [("Cache-Control", "max-age=600")])
        #expect(engine.freshnessLifetime(of: exchange).seconds == 600)
        #expect(exchange == stored([("Cache-Control", "max-age=600")]).withResponse(exchange.response))
        // Copies never see each other's changes.
        let before = exchange
        exchange.requestTime = exchange.requestTime.addingTimeInterval(-5)
        exchange.request.headerFields[.accept] = "text/html"
        #expect(before != exchange)
        #expect(before.requestTime == exchange.requestTime.addingTimeInterval(5))
        #expect(before.request.headerFields[.accept] == nil)
    }
}

private extension StoredExchange {
    /// The same exchange with another head: equal to one made with that head from the start.
    func withResponse(_ head: HTTPResponse) -> StoredExchange {
        StoredExchange(request: request, response: head, requestTime: requestTime, responseTime: responseTime)
    }
}
