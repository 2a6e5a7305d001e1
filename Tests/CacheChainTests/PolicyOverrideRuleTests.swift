@testable import CacheChainInterceptors
import CacheChain
import Testing

@Suite("Policy override rules: matching and Cache-Control editing")
struct PolicyOverrideRuleTests {
    @Test("host (exact, subdomains), path prefix and glob conditions", arguments: [
        (PolicyOverrideRule("h", host: "api.example.com"), "API.example.com", "/x", true),
        (PolicyOverrideRule("h", host: "api.example.com"), "example.com", "/x", false),
        (PolicyOverrideRule("s", host: "*.example.com"), "cdn.eu.example.com", "/", true),
        (PolicyOverrideRule("s", host: "*.example.com"), "example.com", "/", false),
        (PolicyOverrideRule("s", host: "*.example.com"), "badexample.com", "/", false),
        (PolicyOverrideRule("p", pathPrefix: "/v1/"), "any", "/v1/items", true),
        (PolicyOverrideRule("p", pathPrefix: "/v1/"), "any", "/v2/items", false),
        (PolicyOverrideRule("g", pathGlob: "/img/*.png"), "any", "/img/a.png", true),
        (PolicyOverrideRule("g", pathGlob: "/img/*.png"), "any", "/img/sub/a.png", false),
        (PolicyOverrideRule("g", pathGlob: "/img/**.png"), "any", "/img/sub/a.png", true),
        (PolicyOverrideRule("g", pathGlob: "/img/?.png"), "any", "/img/ab.png", false),
        (PolicyOverrideRule("g", pathGlob: "/img/?.png"), "any", "/img/a.png", true),
        (PolicyOverrideRule("all"), "any", "/anything", true),
    ])
    func matching(rule: PolicyOverrideRule, host: String, path: String, expected: Bool) {
        #expect(rule.matches(host: host, path: path) == expected)
    }

    @Test("Cache-Control members split outside quoted strings; directives added and removed")
    func cacheControlList() {
        let value = #"private="a, b", max-age=0 ,no-cache, S-MaxAge=5"#
        #expect(CacheControlList.names(in: value) == ["private", "max-age", "no-cache", "s-maxage"])
        #expect(CacheControlList.removing(["max-age", "s-maxage"], from: value) == #"private="a, b", no-cache"#)
        #expect(CacheControlList.appending("max-age=60", to: nil) == "max-age=60")
        #expect(CacheControlList.appending("no-store", to: "public") == "public, no-store")
        #expect(CacheControlList.removing(["max-age"], from: "max-age=1") == nil)
    }
}
