import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// Every byte of every file under `directory` (the index, its WAL, entry files, key files…).
func filesUnder(_ directory: String) -> [(path: String, bytes: Data)] {
    guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
    var files: [(String, Data)] = []
    for case let relative as String in walker {
        let path = directory + "/" + relative
        if let bytes = FileManager.default.contents(atPath: path) { files.append((path, bytes)) }
    }
    return files
}

/// `Authorization`, `Proxy-Authorization` and `Cookie` sent through `cachechain batch --backend disk` never
/// reach the cache directory in clear, whatever `Vary` says, and variants keyed on them still work across
/// processes through their digests.
@Suite("cachechain batch: no request secret at rest", .tags(.integration))
struct BatchSecretsAtRestTests: BatchSubprocessSuite {
    static let markers = ["MARKER-AUTH-7f3a", "MARKER-COOKIE-91c2", "MARKER-PROXY-55e1"]

    func secretRequest(_ id: Int, _ url: String, cookie: String = "session=MARKER-COOKIE-91c2") -> String {
        let headers = #"[["Authorization","Bearer MARKER-AUTH-7f3a"],["Cookie","\#(cookie)"],"#
            + #"["Proxy-Authorization","Basic MARKER-PROXY-55e1"],["Accept","text/html"]]"#
        return #"{"type":"request","id":\#(id),"method":"GET","url":"\#(url)","headers":\#(headers)}"#
    }

    @Test("a scan of every byte under the disk cache finds no secret; the next process hits its own cookie's variant only")
    func noSecretOnDisk() async throws {
        let scratch = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let cache = scratch.appendingPathComponent("cache").path
        let routes: [(String, String?)] = [
            ("/plain", nil), ("/cookie", "Cookie"), ("/auth", "Authorization"),
            ("/all", "Accept, Cookie, Authorization, Proxy-Authorization"),
        ]
        var originURLs: [String: String] = [:]
        try await withBatch(["--backend", "disk", "--cache-dir", cache]) { batch, origin, _ in
            for (path, vary) in routes {
                var headers = [("Cache-Control", "max-age=600")]
                if let vary { headers.append(("Vary", vary)) }
                origin.route(path, LoopbackRoute(headers: headers, body: "body of \(path)"))
            }
            for (id, (path, _)) in routes.enumerated() {
                originURLs[path] = origin.url(path)
                try batch.send(secretRequest(id, origin.url(path)))
                let reply = try await batch.nextMessage()
                #expect(reply["cache_status"] == .string("miss"), "\(path): \(reply)")
            }
            #expect(origin.receivedRequests.contains { $0.header("Cookie") == "session=MARKER-COOKIE-91c2" }, "the origin got the secrets")

            let files = filesUnder(cache)
            #expect(files.contains { $0.path.hasSuffix("index.sqlite-wal") || $0.path.hasSuffix("index.sqlite") })
            #expect(files.reduce(0) { $0 + $1.bytes.count } > 0)
            for (path, bytes) in files {
                for marker in Self.markers + ["Bearer", "session="] {
                    #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) in \(path)")
                }
            }
            // The session's own cookie hits its variant; another cookie does not.
            try batch.send(secretRequest(10, origin.url("/cookie")))
            #expect(try await batch.nextMessage()["cache_status"] == .string("hit"))
            try batch.send(secretRequest(11, origin.url("/cookie"), cookie: "session=other"))
            #expect(try await batch.nextMessage()["cache_status"] == .string("miss"))
        }
        // A second process over the same directory finds the variants through the directory's digest key.
        try await withBatch(["--backend", "disk", "--cache-dir", cache]) { batch, _, _ in
            for (id, path) in ["/cookie", "/auth", "/all", "/plain"].enumerated() {
                try batch.send(secretRequest(20 + id, originURLs[path] ?? ""))
                let reply = try await batch.nextMessage()
                #expect(reply["cache_status"] == .string("hit"), "\(path) in the second process: \(reply)")
            }
        }
    }
}
