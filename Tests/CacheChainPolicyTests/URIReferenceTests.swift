import CacheChainPolicy
import HTTPTypes
import Testing

/// The engine's RFC 3986 resolver against the RFC's own examples, and the targets it gives invalidation and
/// redirects where Foundation's `URL` answered differently.
@Suite("RFC 3986 §5.2 reference resolution")
struct URIReferenceTests {
    /// §5.4.1 "Normal Examples" and §5.4.2 "Abnormal Examples", base `http://a/b/c/d;p?q`.
    static let examples: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ]

    @Test("RFC 3986 §5.4 examples", arguments: examples)
    func example(_ reference: String, _ expected: String) throws {
        let base = try #require(URIReference("http://a/b/c/d;p?q"))
        #expect(try #require(URIReference(reference)).resolved(against: base).description == expected)
    }

    @Test("IP literals keep their brackets; characters no URI holds and broken escapes are refused")
    func literalsAndMalformed() throws {
        let base = try #require(URIReference("http://[::1]:8080/a/b"))
        #expect(try #require(URIReference("c?d")).resolved(against: base).description == "http://[::1]:8080/a/c?d")
        #expect(try #require(URIReference("//[2001:DB8::7]/x")).resolved(against: base).authority == "[2001:DB8::7]")
        for bad in ["/a b", "/%zz", "/%4", "/é", "/<x>", "/a\u{7F}"] { #expect(URIReference(bad) == nil) }
        #expect(URIReference("/%41%2f")?.path == "/%41%2f")
    }

    /// The target `InvalidationTarget(resolving:against:)` gives for a request to `http://<authority><path>`.
    private func target(_ reference: String, authority: String = "example.com", path: String = "/") -> String? {
        let request = HTTPRequest(method: .post, scheme: "http", authority: authority, path: path)
        return InvalidationTarget(resolving: reference, against: request).map { "\($0.scheme)://\($0.authority)\($0.path)" }
    }

    @Test("targets: the empty reference is the request's own target, IPv6 hosts and ports, userinfo dropped")
    func targets() {
        #expect(target("", path: "/doc?v=1") == "http://example.com/doc?v=1")
        #expect(target("#top", path: "/doc") == "http://example.com/doc")
        #expect(target("/x", authority: "[::1]:8080") == "http://[::1]:8080/x")
        #expect(target("http://[2001:DB8::7]:80/x") == "http://[2001:db8::7]/x")
        #expect(target("https://user:pw@EXAMPLE.com:443") == "https://example.com/")
        #expect(target("http://[::1") == nil)
        #expect(target("http://example.com:x/") == nil)
        #expect(target("ftp://example.com/") == nil)
        #expect(target("http:g") == nil)
    }
}
