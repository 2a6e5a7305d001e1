import CacheChain
import Foundation
import HTTPTypes
import Testing

@testable import CacheChainBatch

@Suite("Batch protocol: reply lines")
struct BatchReplyTests {
    private func response(
        status: HTTPResponse.Status = .ok,
        fields: [(String, [UInt8])] = [],
        body: [UInt8] = [],
        cacheStatus: CacheStatus = .hit
    ) -> PipelineResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return PipelineResponse(
            head: HTTPResponse(status: status, headerFields: headerFields),
            body: PipelineBody(body),
            cacheStatus: cacheStatus,
            trace: [CacheReason(.fresh, "age 3s of 3600s (maxAge)")]
        )
    }

    @Test("a response reply lists its members in the documented order")
    func layout() throws {
        let reply = try BatchReply(
            id: 17,
            response: response(
                fields: [("cache-control", Array("max-age=3600".utf8)), ("age", Array("3".utf8))],
                body: Array("ok\n".utf8)
            ),
            method: .get
        )
        #expect(
            reply.jsonLine
                == #"{"id":17,"status":200,"status_text":"OK","headers":[["cache-control","max-age=3600"],["age","3"]],"body":"ok\n","cache_status":"hit","trace":["fresh: age 3s of 3600s (maxAge)"]}"#
        )
    }

    @Test("bytes outside ASCII in fields are written one code point per byte")
    func latin1Fields() throws {
        let reply = try BatchReply(
            id: 1,
            response: response(fields: [("X-A", Array("caf".utf8) + [0xE9]), ("X-B", [0xC3, 0xA9])]),
            method: .get
        )
        guard case .response(_, _, let headers, _, _, _) = reply.outcome else {
            Issue.record("not a response")
            return
        }
        #expect(headers == [.init("X-A", "caf\u{E9}"), .init("X-B", "\u{C3}\u{A9}")])
        #expect(reply.jsonLine.contains(#"["X-A","café"]"#))
    }

    @Test("a body that is not UTF-8 goes in body_base64 instead of body")
    func binaryBody() throws {
        let bytes: [UInt8] = [0xFF, 0x00, 0x41]
        let line = try BatchReply(id: 2, response: response(body: bytes), method: .get).jsonLine
        #expect(line.contains(#""body_base64":"\#(Data(bytes).base64EncodedString())""#))
        #expect(!line.contains(#""body":"#))
    }

    @Test(
        "HEAD, 204 and 304 replies have an empty body",
        arguments: [(HTTPRequest.Method.head, 200), (.get, 204), (.get, 304)]
    )
    func emptyBodies(method: HTTPRequest.Method, status: Int) throws {
        let line = try BatchReply(
            id: 3,
            response: response(status: .init(code: status), body: Array("x".utf8)),
            method: method
        ).jsonLine
        #expect(line.contains(#""body":"""#))
    }

    @Test("any status is reported unmodified, with the standard phrase or an empty one")
    func statuses() throws {
        let teapot = try BatchReply(id: 4, response: response(status: .init(code: 299)), method: .get).jsonLine
        #expect(teapot.hasPrefix(#"{"id":4,"status":299,"status_text":"","#))
        let custom = try BatchReply(
            id: 5,
            response: response(status: .init(code: 200, reasonPhrase: "Fine")),
            method: .get
        ).jsonLine
        #expect(custom.contains(#""status_text":"Fine""#))
        #expect(HTTPStatusText.phrase(for: 304) == "Not Modified")
    }

    @Test("an error reply carries only the id and the text")
    func error() {
        #expect(
            BatchReply(id: 6, outcome: .error("timed-out: slow")).jsonLine == #"{"id":6,"error":"timed-out: slow"}"#
        )
    }

    @Test("JSON text escapes quotes, backslashes and every control character, and stays on one line")
    func escaping() throws {
        let value = JSONValue.object([.init("s", .string("a\"b\\c\nd\re\tf\u{01}\u{7F}\u{2028}é"))])
        #expect(value.jsonText == #"{"s":"a\"b\\c\nd\re\tf\u0001\u007f\u2028é"}"#)
        #expect(try JSONValue.parse(Array(value.jsonText.utf8)) == value)
    }
}

@Suite("LineSplitter")
struct LineSplitterTests {
    @Test("lines split at LF across chunks, CRLF handled, a last line without a break kept")
    func splitting() {
        var splitter = LineSplitter()
        #expect(splitter.append(Array("ab".utf8)).isEmpty)
        #expect(splitter.append(Array("c\r\nd\n\nef".utf8)) == [Array("abc".utf8), Array("d".utf8), []])
        #expect(splitter.finish() == Array("ef".utf8))
        #expect(splitter.finish() == nil)
    }

    @Test("a line over the limit is dropped as it arrives and becomes a marker; the next lines are intact")
    func overlongLines() {
        var splitter = LineSplitter(maximumLineLength: 10)
        let long = Array(repeating: UInt8(ascii: "x"), count: 25)
        var lines = splitter.append(Array("0123456789\n".utf8) + long.prefix(12))
        lines += splitter.append(long.dropFirst(12) + Array("\nok\n".utf8) + long)
        #expect(lines.count == 3)
        #expect(lines[0] == Array("0123456789".utf8), "a line of exactly the limit is kept")
        #expect(LineSplitter.overlongLineLength(lines[1]) == 25)
        #expect(lines[2] == Array("ok".utf8))
        #expect(LineSplitter.overlongLineLength(lines[2]) == nil)
        let last = splitter.finish()
        #expect(last.flatMap(LineSplitter.overlongLineLength) == 25, "an overlong last line without a break")

        guard case .malformed(let error) = BatchInput(line: lines[1]) else {
            Issue.record("an overlong-line marker must be a malformed line")
            return
        }
        #expect(error.message.contains("the line is 25 bytes"))
        var session = BatchSession(hello: BatchHello(version: "t", config: "c"))
        _ = session.receive(line: Array(#"{"type":"hello","protocol":1}"#.utf8))
        let actions = session.receive(line: lines[1])
        guard case .write(let text)? = actions.first else {
            Issue.record("expected an error line, got \(actions)")
            return
        }
        #expect(text.contains(#""type":"error","line":2"#))
        #expect(text.contains("25 bytes"))
    }
}
