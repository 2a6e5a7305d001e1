import CacheChain
import CacheChainBatch
import Testing

@Suite("Batch protocol: the session state machine")
struct BatchSessionTests {
    private let hello = BatchHello(version: "9.9.9", config: "test pipeline")

    private func feed(_ session: inout BatchSession, _ line: String) -> [BatchSession.Action] {
        session.receive(line: Array(line.utf8))
    }

    private func writes(_ actions: [BatchSession.Action]) -> [String] {
        actions.compactMap { if case .write(let line) = $0 { line } else { nil } }
    }

    @Test("the hello is answered with exactly one line, before anything else")
    func helloFirst() {
        var session = BatchSession(hello: hello)
        let first = feed(&session, #"{"type":"hello","protocol":1}"#)
        #expect(
            first == [
                .write(
                    #"{"type":"hello","name":"cachechain","version":"9.9.9","config":"test pipeline","concurrent":true}"#
                )
            ]
        )
        let again = feed(&session, #"{"type":"hello","protocol":1}"#)
        #expect(writes(again) == [#"{"type":"error","line":2,"error":"hello was already answered"}"#])
    }

    @Test("a caller that skips the hello still gets ours first, then its request performed")
    func requestBeforeHello() {
        var session = BatchSession(hello: hello)
        let actions = feed(&session, #"{"type":"request","id":1,"url":"http://a.test/"}"#)
        #expect(actions.count == 3)
        #expect(actions.first == .write(hello.jsonLine))
        guard case .perform(let request) = actions.last else {
            Issue.record("no perform action: \(actions)")
            return
        }
        #expect(request.id == 1)
    }

    @Test("an unsupported protocol version gets our hello, then an error line; the session goes on")
    func otherProtocolVersion() {
        var session = BatchSession(hello: hello)
        let actions = feed(&session, #"{"type":"hello","protocol":2}"#)
        #expect(writes(actions).count == 2)
        #expect(writes(actions).last?.contains(#""line":1,"error":"protocol 2 is not supported"#) == true)
        #expect(feed(&session, #"{"type":"request","id":1,"url":"http://a.test/"}"#).count == 1)
    }

    @Test("malformed lines are numbered from 1, blank lines counted, and the session keeps going")
    func malformedLines() {
        var session = BatchSession(hello: hello)
        _ = feed(&session, #"{"type":"hello","protocol":1}"#)
        #expect(feed(&session, "").isEmpty)
        let error = writes(feed(&session, "{oops"))
        #expect(error.count == 1)
        #expect(error.first?.hasPrefix(#"{"type":"error","line":3,"error":"not valid JSON"#) == true)
        let invalid = writes(feed(&session, #"{"type":"request","id":5,"url":"nope"}"#))
        #expect(invalid == [#"{"id":5,"error":"'nope' is not an absolute http or https URL"}"#])
        #expect(session.lineNumber == 4)
    }

    @Test("end finishes the session; later lines and the end of input do nothing")
    func end() {
        var session = BatchSession(hello: hello)
        _ = feed(&session, #"{"type":"hello","protocol":1}"#)
        #expect(feed(&session, #"{"type":"end"}"#) == [.finish])
        #expect(session.isFinished)
        #expect(feed(&session, #"{"type":"request","id":1,"url":"http://a.test/"}"#).isEmpty)
        #expect(session.endOfInput().isEmpty)
    }

    @Test("the end of input finishes a running session; no hello is written when nothing was received")
    func endOfInput() {
        var silent = BatchSession(hello: hello)
        #expect(silent.endOfInput() == [.finish])
        var running = BatchSession(hello: hello)
        _ = feed(&running, #"{"type":"hello","protocol":1}"#)
        #expect(running.endOfInput() == [.finish])
        #expect(running.isFinished)
    }
}
