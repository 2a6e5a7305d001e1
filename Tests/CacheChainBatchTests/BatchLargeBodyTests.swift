import CacheChain
import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// `cachechain batch` and bodies too large for one reply line, through the real transport and a loopback origin.
@Suite("cachechain batch: bodies over --max-inline-body", .tags(.integration))
struct BatchLargeBodyTests: BatchSubprocessSuite {
    /// 200 KiB of the letter `a`, gzip-compressed to 234 bytes: what a `Content-Encoding: gzip` origin sends.
    static let gzipOf200KiB = Data(base64Encoded: """
        H4sIAAAAAAACA+3BAQ0AAADCoKzvX8IeDigAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACeDMdlgBMAIAMA
        """)

    @Test("a body over the limit is an error reply naming both options; a smaller one is inlined; the session goes on")
    func tooLargeIsAnError() async throws {
        let options = ["--max-inline-body", "1000"]
        try await withBatch(options, checkHello: { hello in
            #expect(hello["config"].map { "\($0)".contains("bodies over 1000 bytes refused") } == true, "\(hello)")
        }) { batch, origin, _ in
            origin.route("/big", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: String(repeating: "b", count: 5_000)))
            origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: String(repeating: "s", count: 1_000)))
            let big = try await roundTrip(batch, 1, origin.url("/big"))
            guard case .string(let error)? = big["error"] else {
                Issue.record("expected an error reply, got \(big)")
                return
            }
            #expect(error.hasPrefix("body-too-large: the response body is 5000 bytes, more than the 1000 bytes"))
            #expect(error.contains("--max-inline-body") && error.contains("--body-dir"))
            #expect(big["body"] == nil)
            let small = try await roundTrip(batch, 2, origin.url("/small"))
            #expect(small["body"] == .string(String(repeating: "s", count: 1_000)))
        }
    }

    @Test("--body-dir: a 234-byte gzip response that decodes to 200 KiB goes to a 0600 file the reply names")
    func largeBodyToFile() async throws {
        let bodies = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: bodies) }
        let gzip = try #require(Self.gzipOf200KiB)
        try await withBatch(["--max-inline-body", "65536", "--body-dir", bodies.path]) { batch, origin, _ in
            origin.route("/gz", LoopbackRoute(headers: [("Content-Encoding", "gzip"), ("Cache-Control", "max-age=60")], body: .bytes(Array(gzip))))
            for id in 1...2 {  // a miss, then a hit: each reply gets a file of its own
                let reply = try await roundTrip(batch, id, origin.url("/gz"))
                #expect(reply["status"] == .integer(200))
                #expect(reply["body"] == nil && reply["body_base64"] == nil)
                #expect(reply["body_length"] == .integer(204_800))
                guard case .string(let path)? = reply["body_file"] else {
                    Issue.record("expected body_file, got \(reply)")
                    return
                }
                #expect(path.hasPrefix(bodies.path + "/cachechain-body-\(id)-"))
                #expect(FileManager.default.contents(atPath: path) == Data(repeating: UInt8(ascii: "a"), count: 204_800))
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(mode == 0o600)
                #expect(header(reply, "Content-Encoding") == nil, "the body in the file is decoded")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path).count == 2)
    }

    @Test("--body-dir must be an existing writable directory; --max-inline-body 0 or more", arguments: [
        ["--body-dir", "/proc/no-such-dir"], ["--max-inline-body=-1"],
    ])
    func invalidOptions(_ arguments: [String]) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await run(["batch"] + arguments, in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains(arguments[0].split(separator: "=")[0]), "\(result.stderr)")
    }
}

@Suite("Batch protocol: the reply of a body written to a file")
struct BatchBodyFileReplyTests {
    @Test("body_file and body_length replace body; the other members stay")
    func fileReply() {
        let response = PipelineResponse(head: HTTPResponse(status: .ok), body: PipelineBody(string: "12345"), cacheStatus: .miss)
        let line = BatchReply(id: 3, response: response, bodyFile: "/bodies/cachechain-body-3-x").jsonLine
        #expect(line.contains(#""status":200"#))
        #expect(line.contains(#""body_file":"/bodies/cachechain-body-3-x","body_length":5,"cache_status":"miss""#), "\(line)")
        #expect(!line.contains(#""body":"#))
    }
}
