@testable import CacheChainRedis
import Testing

@Suite("Redis circuit breaker state machine")
struct RedisCircuitBreakerTests {
    let start = ContinuousClock.now

    func breaker(threshold: Int = 1, interval: Duration = .seconds(10)) -> RedisCircuitBreaker {
        RedisCircuitBreaker(settings: .init(failureThreshold: threshold, retryInterval: interval))
    }

    @Test("closed → open at the threshold → one probe after the interval → closed when it succeeds")
    func probeCloses() {
        var breaker = breaker(threshold: 2)
        #expect(breaker.admit(now: start) == .proceed)
        #expect(breaker.recordFailure("refused", now: start) == nil, "one failure is under the threshold of 2")
        #expect(breaker.recordSuccess() == nil)
        #expect(breaker.recordFailure("refused", now: start) == nil, "a success resets the count")
        #expect(breaker.recordFailure("refused", now: start) == .opened(cause: "refused"))
        #expect(breaker.generation == 1)
        #expect(breaker.admit(now: start + .seconds(9)) == .reject(retryAt: start + .seconds(10), cause: "refused"))
        #expect(breaker.peek(now: start + .seconds(10)) == .probe)
        #expect(breaker.admit(now: start + .seconds(10)) == .probe)
        #expect(breaker.admit(now: start + .seconds(11)) == .reject(retryAt: start + .seconds(20), cause: "refused"), "one probe at a time")
        #expect(breaker.recordSuccess() == .closed)
        #expect(breaker.admit(now: start + .seconds(11)) == .proceed)
        #expect(breaker.generation == 1, "closing does not start a generation")
    }

    @Test("a failed probe opens the circuit for another interval and starts a new generation")
    func failedProbe() {
        var breaker = breaker()
        #expect(breaker.recordFailure("timeout", now: start) == .opened(cause: "timeout"))
        #expect(breaker.admit(now: start + .seconds(10)) == .probe)
        #expect(breaker.recordFailure("timeout again", now: start + .seconds(12)) == .opened(cause: "timeout again"))
        #expect(breaker.generation == 2)
        #expect(breaker.admit(now: start + .seconds(21)) == .reject(retryAt: start + .seconds(22), cause: "timeout again"))
        #expect(breaker.publicState(now: start + .seconds(21)) == .open(retryIn: .seconds(1), cause: "timeout again"))
    }

    @Test("calls admitted before the circuit opened change nothing when they end")
    func lateReports() {
        var breaker = breaker()
        _ = breaker.recordFailure("reset", now: start)
        #expect(breaker.recordFailure("reset too", now: start) == nil)
        #expect(breaker.recordSuccess() == nil)
        #expect(breaker.generation == 1)
        #expect(breaker.publicState(now: start) == .open(retryIn: .seconds(10), cause: "reset"))
    }

    @Test("a probe that never reports is replaced after an interval, so the circuit cannot stick")
    func lostProbe() {
        var breaker = breaker()
        _ = breaker.recordFailure("hung", now: start)
        #expect(breaker.admit(now: start + .seconds(10)) == .probe)
        #expect(breaker.publicState(now: start + .seconds(15)) == .probing(cause: "hung"))
        #expect(breaker.admit(now: start + .seconds(20)) == .probe)
    }
}
