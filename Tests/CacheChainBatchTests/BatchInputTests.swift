import CacheChain
import HTTPTypes
import Testing

@testable import CacheChainBatch

@Suite("Batch protocol: decoding input lines")
struct BatchInputTests {
    private func decode(_ text: String) -> BatchInput { BatchInput(line: Array(text.utf8)) }

    private func request(_ text: String) throws -> BatchRequest {
        guard case .request(let request) = decode(text) else {
            Issue.record("not a valid request: \(decode(text))")
            throw BatchLineError("not a request")
        }
        return request
    }

    @Test("hello, end and blank lines; unknown fields are ignored")
    func controlLines() {
        #expect(
            decode(#"{"type":"hello","protocol":1,"client":"pytest","extra":{"a":[1,2]}}"#)
                == .hello(protocolVersion: 1)
        )
        #expect(decode(#"{"type":"hello"}"#) == .hello(protocolVersion: nil))
        #expect(decode(#"{"type":"end","why":"done"}"#) == .end)
        #expect(decode("") == .blank)
        #expect(decode("  \t\r") == .blank)
    }

    @Test("a full request maps onto the pipeline request and its options")
    func fullRequest() throws {
        let request = try request(
            #"{"type":"request","id":17,"method":"POST","url":"http://127.0.0.1:8000/x?y=1","#
                + #""headers":[["Accept","text/plain"],["X-Seq","2"],["X-Seq","3"]],"body":"hé","#
                + #""cache_mode":"no-store","redirect":"manual","timeout_ms":1500,"labels":["a"]}"#
        )
        #expect(request.id == 17)
        #expect(request.request.head.method == .post)
        #expect(request.request.head.scheme == "http")
        #expect(request.request.head.authority == "127.0.0.1:8000")
        #expect(request.request.head.path == "/x?y=1")
        #expect(
            request.request.head.headerFields.map { "\($0.name.rawName)=\($0.value)" } == [
                "Accept=text/plain", "X-Seq=2", "X-Seq=3",
            ]
        )
        #expect(try request.request.body?.collect() == Array("hé".utf8))
        #expect(request.cacheMode == .noStore)
        #expect(request.redirect == .manual)
        #expect(request.timeout == .milliseconds(1500))
        #expect(request.contextValues[RedirectInterceptor.ModeKey.self] == .manual)
    }

    @Test("defaults: GET, no headers, no body, default cache mode, follow, no timeout; null means default")
    func defaults() throws {
        for line in [
            #"{"type":"request","id":1,"url":"https://example.com"}"#,
            #"{"type":"request","id":1,"url":"https://example.com","method":null,"headers":null,"body":null,"cache_mode":null,"redirect":null,"timeout_ms":null}"#,
        ] {
            let request = try request(line)
            #expect(request.request.head.method == .get)
            #expect(request.request.head.path == "/")
            #expect(request.request.head.headerFields.isEmpty)
            #expect(request.request.body == nil)
            #expect(request.cacheMode == .default)
            #expect(request.redirect == .follow)
            #expect(request.timeout == nil)
        }
    }

    @Test(
        "cache_mode maps Fetch names to cache policies as the issue specifies",
        arguments: [
            ("default", RequestCachePolicy.useProtocolCachePolicy, true),
            ("reload", .reloadIgnoringLocalCacheData, true),
            ("no-store", .reloadIgnoringLocalCacheData, false),
            ("no-cache", .reloadRevalidatingCacheData, true),
            ("force-cache", .returnCacheDataElseLoad, true),
            ("only-if-cached", .returnCacheDataDontLoad, true),
        ]
    )
    func cacheModes(name: String, policy: RequestCachePolicy, storing: Bool) throws {
        let request = try request(#"{"type":"request","id":1,"url":"http://a.test/","cache_mode":"\#(name)"}"#)
        #expect(request.cacheMode.cachePolicy == policy)
        #expect(request.cacheMode.isStoringAllowed == storing)
    }

    @Test("header values: one byte per code point up to U+00FF, sent as those bytes")
    func latin1HeaderValues() throws {
        let request = try request(
            #"{"type":"request","id":1,"url":"http://a.test/","headers":[["X-Name","caf\u00e9"],["X-Raw","\u00c3\u00a9"]]}"#
        )
        let fields = Array(request.request.head.headerFields)
        #expect(fields[0].withUnsafeBytesOfValue { Array($0) } == Array("caf".utf8) + [0xE9])
        #expect(fields[1].withUnsafeBytesOfValue { Array($0) } == [0xC3, 0xA9])
    }

    @Test("header values: leading and trailing spaces and tabs are not part of the value (RFC 9110 §5.5)")
    func paddedHeaderValues() throws {
        let request = try request(
            #"{"type":"request","id":1,"url":"http://a.test/","headers":[["X-A","  a b\t"],["X-B","\t \t"],["X-C","c"]]}"#
        )
        let values = request.request.head.headerFields.map { $0.withUnsafeBytesOfValue { Array($0) } }
        #expect(values == [Array("a b".utf8), [], Array("c".utf8)])
    }

    @Test("Fetch's request fields per mode: no-cache adds max-age=0, reload and no-store add no-cache, none replaces the caller's")
    func fetchRequestFields() {
        func fields(_ mode: BatchCacheMode, _ own: [(HTTPField.Name, String)] = []) -> [String] {
            var given = HTTPFields()
            for (name, value) in own { given.append(HTTPField(name: name, value: value)) }
            return mode.requestFields(given).map { "\($0.name.canonicalName): \($0.value)" }
        }
        #expect(fields(.noCache) == ["cache-control: max-age=0"])
        #expect(fields(.noCache, [(.cacheControl, "max-stale=5")]) == ["cache-control: max-stale=5"])
        #expect(fields(.noCache, [(.pragma, "no-cache")]) == ["pragma: no-cache", "cache-control: max-age=0"])
        for mode in [BatchCacheMode.reload, .noStore] {
            #expect(fields(mode) == ["pragma: no-cache", "cache-control: no-cache"], "\(mode)")
            #expect(fields(mode, [(.pragma, "x")]) == ["pragma: x", "cache-control: no-cache"], "\(mode)")
            #expect(fields(mode, [(.cacheControl, "max-age=5")]) == ["cache-control: max-age=5", "pragma: no-cache"], "\(mode)")
        }
        for mode in [BatchCacheMode.default, .forceCache, .onlyIfCached] {
            #expect(fields(mode).isEmpty, "\(mode)")
        }
    }

    @Test(
        "a request with a readable id but a bad member is answered with an id error",
        arguments: [
            (#""url":"ftp://a.test/""#, "not an absolute http or https URL"),
            (#""url":"http://a.test/","method":"G ET""#, "not a valid method"),
            (#""url":"http://a.test/","headers":[["Bad Name","x"]]"#, "not a valid field name"),
            (#""url":"http://a.test/","headers":[["X","\u20ac"]]"#, "U+20AC is outside U+0000–U+00FF"),
            (#""url":"http://a.test/","headers":[["X","a\nb"]]"#, "headers[0] (X): the value has a line break (LF) at offset 1"),
            (#""url":"http://a.test/","headers":[["X"," a\rb"]]"#, "the value has a line break (CR) at offset 1"),
            (#""url":"http://a.test/","headers":[["X","a\u0000b"]]"#, "the value has a NUL character (U+0000) at offset 1"),
            (#""url":"http://a.test/","headers":[["X","ab\u0007"]]"#, "the control character U+0007 at offset 2"),
            (#""url":"http://a.test/","headers":[["X","a\u007fb"]]"#, "the control character U+007F at offset 1, which HTTP does not allow"),
            (#""url":"http://a.test/","headers":[["X"]]"#, "headers[0] is not a [name, value] pair"),
            (#""url":"http://a.test/","headers":{"X":"y"}"#, "headers is not an array"),
            (#""url":"http://a.test/","body":42"#, "body is neither a string nor null"),
            (#""url":"http://a.test/","cache_mode":"bogus""#, "unknown cache_mode 'bogus'"),
            (#""url":"http://a.test/","redirect":"error""#, "unsupported redirect 'error'"),
            (#""url":"http://a.test/","timeout_ms":0"#, "timeout_ms is not a positive number"),
            (#""url":"http://a.test/","timeout_ms":"5""#, "timeout_ms is not a positive number"),
            (#""method":"GET""#, "a request needs a string url"),
        ]
    )
    func invalidRequests(members: String, expected: String) {
        let input = decode(#"{"type":"request","id":9,\#(members)}"#)
        guard case .invalidRequest(let id, let error) = input else {
            Issue.record("expected an invalid request, got \(input)")
            return
        }
        #expect(id == 9)
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test(
        "lines that are not usable messages are malformed",
        arguments: [
            ("{not json", "not valid JSON"),
            ("[1,2]", "expected a JSON object"),
            ("42", "expected a JSON object"),
            (#"{"id":1,"url":"http://a.test/"}"#, "no string member 'type'"),
            (#"{"type":"ping"}"#, "unknown message type 'ping'"),
            (#"{"type":"request","url":"http://a.test/"}"#, "integer id"),
            (#"{"type":"request","id":"7","url":"http://a.test/"}"#, "integer id"),
            (#"{"type":"request","id":1.5,"url":"http://a.test/"}"#, "integer id"),
        ]
    )
    func malformed(line: String, expected: String) {
        guard case .malformed(let error) = decode(line) else {
            Issue.record("expected a malformed line, got \(decode(line))")
            return
        }
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test("bytes that are not UTF-8 make a malformed line")
    func invalidUTF8() {
        let input = BatchInput(line: Array(#"{"type":"end","x":""#.utf8) + [0xFF] + Array(#""}"#.utf8))
        #expect(input == .malformed(BatchLineError("the line is not valid UTF-8")))
    }
}
