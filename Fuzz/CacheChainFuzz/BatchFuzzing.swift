import CacheChainBatch
import CacheChainCore
import HTTPTypes

/// `cachechain batch` input: each line through the session's state machine (which decodes it with
/// ``BatchInput``), then the end of input; every reply a request would get is encoded too.
enum BatchFuzzing {
    static func lines(_ bytes: [UInt8]) -> Bool {
        var session = BatchSession(hello: BatchHello(version: "fuzz", config: "fuzz"))
        var actions: [BatchSession.Action] = []
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            actions += session.receive(line: line)
        }
        actions += session.endOfInput()
        var performed = false
        for case .perform(let request) in actions {
            performed = true
            let response = PipelineResponse(head: .init(status: .ok, headerFields: request.request.head.headerFields), body: request.request.body ?? .empty)
            if let reply = try? BatchReply(id: request.id, response: response, method: request.request.head.method) {
                _ = reply.jsonLine
            }
        }
        return performed
    }
}
