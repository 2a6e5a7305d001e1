import CacheChain
import CacheChainInterceptors
import Testing

/// The `QUERY` cache key's content normalisation (RFC 10008 §2.7, issue 45.10): only differences that cannot change
/// the query are removed.
@Suite("QUERY content normalisation")
struct QueryContentNormalizationTests {
    func keyed(_ body: String, _ type: String? = "application/json", encoding: String? = nil) -> [UInt8] {
        QueryContentNormalization.keyedContent(Array(body.utf8), contentType: type, contentEncoding: encoding)
    }

    @Test("JSON: whitespace and member order (nested too) do not matter; +json types are JSON", arguments: [
        (#"{"b":[1, {"y":2,"x":1}],"a":"s p"}"#, "{ \"a\" : \"s p\",\n\t\"b\" : [ 1 , { \"x\":1, \"y\":2 } ] }", "application/json"),
        (#"{"q":true,"n":null}"#, #" {"n" : null , "q" : true} "#, "application/problem+json"),
        (#"[]"#, " [ ] ", "Application/JSON; charset=utf-8"),
    ])
    func jsonEquivalent(_ sample: (String, String, String)) {
        #expect(keyed(sample.0, sample.2) == keyed(sample.1, sample.2))
    }

    @Test("JSON: values are compared as written, repeated names keep their order, invalid JSON is its bytes", arguments: [
        (#"{"n":1}"#, #"{"n":1.0}"#),
        (#"{"s":"a"}"#, #"{"s":"\u0061"}"#),
        (#"{"a":1,"a":2}"#, #"{"a":2,"a":1}"#),
        (#"[1,2]"#, #"[2,1]"#),
        (#"{"a":1,}"#, #"{"a":1 ,}"#),
        (#"{"a":"x y"}"#, #"{"a":"xy"}"#),
    ])
    func jsonDifferent(_ sample: (String, String)) {
        #expect(keyed(sample.0) != keyed(sample.1))
    }

    @Test("JSON nested past the depth bound, or with trailing bytes, is keyed by its bytes")
    func jsonLimits() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let normalised = QueryContentNormalization.normalized(Array(deep.utf8), mediaType: "application/json")
        #expect(normalised == Array(deep.utf8))
        #expect(QueryContentNormalization.normalized(Array(#"{"a" : 1} x"#.utf8), mediaType: "application/json") == Array(#"{"a" : 1} x"#.utf8))
        #expect(QueryContentNormalization.normalized(Array(#" {"b":1, "a" : 2}"#.utf8), mediaType: "application/json") == Array(#"{"a":2,"b":1}"#.utf8))
    }

    @Test("forms: field order does not matter, a repeated name's order does")
    func forms() {
        let form = "application/x-www-form-urlencoded"
        #expect(keyed("a=1&b=2&c", form) == keyed("c&b=2&a=1", form))
        #expect(keyed("t=1&t=2", form) != keyed("t=2&t=1", form))
        #expect(keyed("a=1&b=2", form) != keyed("a=1&b=2", "text/plain"), "the media type is keyed too")
    }

    @Test("a key's target is its method and URL, whatever its discriminator")
    func sameTarget() {
        var key = CacheKey(method: "QUERY", scheme: "https", authority: "example.com", path: "/search")
        key.discriminator = "content-sha256=aa"
        #expect(key.isSameTarget(as: CacheKey(method: "QUERY", scheme: "HTTPS", authority: "example.com:443", path: "/search")))
        #expect(!key.isSameTarget(as: CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/search")))
        #expect(!key.isSameTarget(as: CacheKey(method: "QUERY", scheme: "https", authority: "example.com", path: "/search?x")))
    }

    @Test("other types, and encoded content, are their exact bytes")
    func exactBytes() {
        #expect(keyed("b=2&a=1", "text/plain") != keyed("a=1&b=2", "text/plain"))
        #expect(keyed(#"{"b":1,"a":2}"#, "application/json", encoding: "gzip") != keyed(#"{"a":2,"b":1}"#, "application/json", encoding: "gzip"))
        #expect(keyed(#"{"a":2}"#, "application/json", encoding: "identity") == keyed(#"{ "a":2 }"#, "application/json"))
    }
}
