import CacheChainCore
import HTTPTypes
import Testing

/// RFC 3986 normalization of the key's path and query: the target libcurl fetches is the target stored.
@Suite("CacheKey: RFC 3986 path and query normalization")
struct CacheKeyNormalizationTests {
    /// RFC 3986 §5.2.4 and §5.4's examples, as absolute paths, and §6.2.2's percent-encoding rules.
    static let targets: [(String, String)] = [
        ("/a/b/c/./../../g", "/a/g"),
        ("/a/b/../c", "/a/c"),
        ("/x/../y/page", "/y/page"),
        ("/./g", "/g"),
        ("/../g", "/g"),
        ("/../../g", "/g"),
        ("/g.", "/g."),
        ("/.g", "/.g"),
        ("/g..", "/g.."),
        ("/..g", "/..g"),
        ("/a/b/..", "/a/"),
        ("/a/b/.", "/a/b/"),
        ("/a/./b/", "/a/b/"),
        ("/a/b/../..", "/"),
        ("/..", "/"),
        ("/.", "/"),
        ("/a//b/../c", "/a//c"),
        ("/a/%2E%2E/b", "/b"),
        ("/a/%2e/b", "/a/b"),
        ("/%7Euser/%7efile", "/~user/~file"),
        ("/%41%62%2D%5F", "/Ab-_"),
        ("/a%2fb%3a", "/a%2Fb%3A"),
        ("/100%", "/100%"),
        ("/%zz/%4", "/%zz/%4"),
        ("/a/../b?x=../y&z=./w", "/b?x=../y&z=./w"),
        ("/p?q=%7e%2f", "/p?q=~%2F"),
        ("/plain/path?x=1", "/plain/path?x=1"),
        ("/a/b/../c#frag", "/a/c"),
    ]

    @Test("dot segments are removed and percent-encodings normalized", arguments: targets)
    func normalizes(_ target: String, _ expected: String) {
        let key = CacheKey(method: "GET", scheme: "http", authority: "example.com", path: target)
        #expect(key.path == expected, "\(target)")
    }

    @Test("equivalent targets share one key")
    func equivalentTargets() {
        let keys = ["/a/b/../c", "/a/./c", "/a/%63", "/x/../a/c"].map {
            CacheKey(HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: $0))
        }
        #expect(Set(keys).count == 1)
        #expect(keys[0].url == "https://example.com/a/c")
    }
}
