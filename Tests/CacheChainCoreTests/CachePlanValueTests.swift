import CacheChainCore
import HTTPTypes
import Testing

/// A `CachePlan` keeps its values behind one shared reference (issue 42: a request carrying a plan is copied at
/// every interceptor boundary); these pin that it still behaves as a value.
@Suite("CachePlan is a value")
struct CachePlanValueTests {
    let key = CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/a")
    let other = CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/b")

    @Test("changing a copy leaves the original as it was, field by field")
    func copiesAreIndependent() {
        let original = CachePlan(key: key, sentAs: CachePlan.SentRequest(method: .post, body: [1, 2, 3]))
        var copy = original
        copy.key = other
        copy.sentAs?.body.append(4)
        copy.responseOverride = CachePlan.ResponseOverride(ruleName: "rule", isNeverCache: true)
        copy.validation = CachePlan.Validation(conditional: HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/a"), candidates: [])
        #expect(original.key == key)
        #expect(original.sentAs?.body == [1, 2, 3])
        #expect(original.responseOverride == nil)
        #expect(original.validation == nil)
        #expect(copy.key == other && copy.sentAs?.body == [1, 2, 3, 4] && copy.responseOverride?.isNeverCache == true)
    }

    @Test("plans with equal values are equal and hash alike, whether or not they share storage")
    func equality() {
        let first = CachePlan(key: key, responseOverride: CachePlan.ResponseOverride(ruleName: "rule"))
        let second = CachePlan(key: key, responseOverride: CachePlan.ResponseOverride(ruleName: "rule"))
        var changed = first
        changed.responseOverride?.ruleName = "another"
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(Set([first, second, first]).count == 1)
        #expect(changed != first)
        changed.responseOverride?.ruleName = "rule"
        #expect(changed == first)
    }
}
