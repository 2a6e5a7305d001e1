import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("Serving: Age, stale-if-error (RFC 5861), answering the application's conditionals (RFC 9110 §13)")
struct ServingTests {
    let engine = CachePolicyEngine()

    @Test("served responses carry the current age in whole seconds")
    func age() {
        let head = engine.responseForServing(stored([("Cache-Control", "max-age=60"), ("Age", "3")]), now: t0.addingTimeInterval(7.9))
        #expect(head.headerFields[.age] == "10")
        #expect(head.headerFields[values: .age].count == 1)
    }

    @Test("serving with the decision's age gives the same head as computing it; the age is clamped and never negative")
    func ageFromDecision() {
        let exchange = stored([("Cache-Control", "max-age=60"), ("Age", "3")])
        let now = t0.addingTimeInterval(7.9)
        guard case .useStored(_, let report, _) = engine.decide(request: request("/", []), policy: .useProtocolCachePolicy, stored: [exchange], now: now) else {
            Issue.record("a fresh response was not used")
            return
        }
        #expect(engine.responseForServing(exchange, currentAge: report.currentAge) == engine.responseForServing(exchange, now: now))
        #expect(engine.responseForServing(exchange, currentAge: 1e12).headerFields[.age] == "2147483648")
        #expect(engine.responseForServing(exchange, currentAge: -5).headerFields[.age] == "0")
    }

    @Test("stale-if-error table", arguments: [
        ([("Cache-Control", "max-age=1, stale-if-error=60")], [(String, String)](), 30.0, true),
        ([("Cache-Control", "max-age=1, stale-if-error=60")], [], 100.0, false),
        ([("Cache-Control", "max-age=1")], [("Cache-Control", "stale-if-error=600")], 100.0, true),
        ([("Cache-Control", "max-age=1")], [], 5.0, false),
        ([("Cache-Control", "max-age=1, stale-if-error=60, must-revalidate")], [], 5.0, false),
        ([("Cache-Control", "max-age=1, stale-if-error=60, no-cache")], [], 5.0, false),
        ([("Cache-Control", "max-age=1, stale-if-error=abc")], [], 5.0, false),
    ])
    func staleIfError(_ responseFields: [(String, String)], _ requestFields: [(String, String)], _ elapsed: TimeInterval, _ allowed: Bool) {
        let result = engine.canServeStaleOnError(stored(responseFields), request: request("/", requestFields), now: t0.addingTimeInterval(elapsed))
        #expect(result == allowed)
    }

    @Test("stale when the origin is unreachable (RFC 9111 §4.2.4): allowed unless a directive forbids it", arguments: [
        (CacheMode.privateCache, [("Cache-Control", "max-age=1")], [(String, String)](), true),
        (.privateCache, [("Cache-Control", "max-age=1, proxy-revalidate")], [], true),
        (.privateCache, [("Cache-Control", "s-maxage=1")], [], true),
        (.privateCache, [("Cache-Control", "max-age=1, must-revalidate")], [], false),
        (.privateCache, [("Cache-Control", "max-age=1, no-cache")], [], false),
        (.privateCache, [("Cache-Control", "max-age=1")], [("Cache-Control", "no-cache")], false),
        (.privateCache, [("Cache-Control", "max-age=1")], [("Pragma", "no-cache")], false),
        (.sharedCache, [("Cache-Control", "max-age=1")], [], true),
        (.sharedCache, [("Cache-Control", "max-age=1, proxy-revalidate")], [], false),
        (.sharedCache, [("Cache-Control", "s-maxage=1")], [], false),
    ])
    func staleWhenUnreachable(_ mode: CacheMode, _ responseFields: [(String, String)], _ requestFields: [(String, String)], _ allowed: Bool) {
        let on = CachePolicyEngine(configuration: .init(mode: mode, servesStaleWhenOriginUnreachable: true))
        #expect(on.canServeStaleWhenOriginUnreachable(stored(responseFields), request: request("/", requestFields)) == allowed)
        let off = CachePolicyEngine(configuration: .init(mode: mode, servesStaleWhenOriginUnreachable: false))
        #expect(!off.canServeStaleWhenOriginUnreachable(stored(responseFields), request: request("/", requestFields)))
    }

    @Test("the switch follows the mode unless set")
    func staleWhenUnreachableDefault() {
        var configuration = CachePolicyConfiguration()
        #expect(configuration.servesStaleWhenOriginUnreachable)
        configuration.mode = .sharedCache
        #expect(!configuration.servesStaleWhenOriginUnreachable)
        configuration.servesStaleWhenOriginUnreachable = true
        #expect(configuration.servesStaleWhenOriginUnreachable)
        #expect(configuration != CachePolicyConfiguration(mode: .sharedCache))
    }

    @Test("the application's conditional headers against the served response", arguments: [
        ([("If-None-Match", "\"a\"")], 304),
        ([("If-None-Match", "W/\"a\"")], 304),
        ([("If-None-Match", "\"x\", \"a\"")], 304),
        ([("If-None-Match", "*")], 304),
        ([("If-None-Match", "\"b\"")], 200),
        ([("If-None-Match", "\"b\""), ("If-Modified-Since", date(0))], 200),
        ([("If-Modified-Since", date(0))], 304),
        ([("If-Modified-Since", date(-3600))], 200),
        ([("If-Modified-Since", "garbage")], 200),
    ])
    func conditional(_ requestFields: [(String, String)], _ expected: Int) {
        let served = response(200, [("ETag", "\"a\""), ("Last-Modified", date(-60)), ("Cache-Control", "max-age=60"), ("Content-Length", "5")])
        let answer = engine.evaluateConditional(request: request("/", requestFields), servedResponse: served)
        #expect((answer?.status.code ?? 200) == expected)
        if let answer {
            #expect(answer.headerFields[.eTag] == "\"a\"")
            #expect(answer.headerFields[.cacheControl] == "max-age=60")
            #expect(answer.headerFields[.contentLength] == nil)
        }
    }

    @Test("conditionals are not evaluated for non-2xx responses")
    func notFor404() {
        let answer = engine.evaluateConditional(request: request("/", [("If-None-Match", "*")]), servedResponse: response(404, [("ETag", "\"a\"")]))
        #expect(answer == nil)
    }
}
