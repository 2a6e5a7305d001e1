import CacheChainPolicy
import HTTPTypes
import Testing

/// RFC 9875's two fields as Structured Field Lists of Strings (issue 45.9).
@Suite("CacheGroups: Cache-Groups and Cache-Group-Invalidation parsed strictly")
struct CacheGroupsTests {
    func fields(_ name: HTTPField.Name, _ lines: [String]) -> HTTPFields {
        var fields = HTTPFields()
        for line in lines { fields.append(HTTPField(name: name, value: line)) }
        return fields
    }

    @Test("Strings in order, each once, across lines; parameters ignored; case and escapes kept", arguments: [
        (["\"a\", \"b\""], ["a", "b"]),
        (["\"a\"", "\"b\";p=1;q=\"x\", \"a\""], ["a", "b"]),
        (["  \"A b\",\t\"a\\\"q\\\\\"  "], ["A b", "a\"q\\"]),
        ([String](), [String]()),
    ])
    func parses(_ lines: [String], _ expected: [String]) {
        #expect(CacheGroups.groups(in: fields(.cacheGroups, lines)) == expected)
        #expect(CacheGroups.invalidatedGroups(in: fields(.cacheGroupInvalidation, lines)) == expected)
    }

    @Test("a malformed field or a member that is not a String is ignored as a whole", arguments: [
        "a", "\"a\", b", "\"a\",", "\"a\" \"b\"", "\"unterminated", "(\"a\")", "\"a\";P=1", "\"é\"", "1", "?1",
    ])
    func ignoresMalformed(_ line: String) {
        #expect(CacheGroups.groups(in: fields(.cacheGroups, [line])).isEmpty, "\(line)")
    }

    @Test("Cache-Group-Invalidation counts on an unsafe request's answer only")
    func onlyUnsafe() {
        let engine = CachePolicyEngine()
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheGroupInvalidation] = "\"a\""
        for method in [HTTPRequest.Method.post, .put, .delete, .patch] {
            #expect(engine.invalidatedGroups(request: HTTPRequest(method: method, scheme: "https", authority: "x", path: "/"), response: response) == ["a"])
        }
        for method in [HTTPRequest.Method.get, .head, .options, .trace, HTTPRequest.Method("QUERY")!] {
            #expect(engine.invalidatedGroups(request: HTTPRequest(method: method, scheme: "https", authority: "x", path: "/"), response: response).isEmpty)
        }
    }
}
