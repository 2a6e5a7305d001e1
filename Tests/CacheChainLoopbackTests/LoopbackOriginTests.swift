import CacheChainLoopback
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// Runs `body` with a started origin and always shuts it down.
func withOrigin<T>(tls: Bool = false, _ body: (LoopbackOrigin) async throws -> T) async throws -> T {
    let origin = try await LoopbackOrigin.start(tls: tls)
    do {
        let result = try await body(origin)
        try await origin.shutdown()
        return result
    } catch {
        try await origin.shutdown()
        throw error
    }
}

@Suite("LoopbackOrigin")
struct LoopbackOriginTests {
    @Test("a route answers 200 with its body, headers, validators, Date and Content-Length")
    func routeAnswers() async throws {
        try await withOrigin { origin in
            #expect(origin.baseURL == "http://127.0.0.1:\(origin.port)")
            #expect(origin.url("/a?x=1") == "http://127.0.0.1:\(origin.port)/a?x=1")
            origin.route(
                "/a",
                LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("X-Test", "yes")], body: "hello", etag: "\"v1\"",
                              lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
            )
            let response = try await TestClient.send(port: origin.port, "/a")
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(response.header("Cache-Control") == "max-age=60")
            #expect(response.header("X-Test") == "yes")
            #expect(response.header("ETag") == "\"v1\"")
            #expect(response.header("Last-Modified") == "Sun, 06 Nov 1994 08:49:37 GMT")
            #expect(response.header("Content-Length") == "5")
            let date = try #require(response.header("Date"))
            #expect(date.hasSuffix(" GMT") && date.count == 29)
        }
    }

    @Test("a route's own Date header replaces the server's")
    func routeDate() async throws {
        try await withOrigin { origin in
            origin.route("/d", LoopbackRoute(headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")], body: "x"))
            let response = try await TestClient.send(port: origin.port, "/d")
            #expect(response.headers["Date"] == ["Sun, 06 Nov 1994 08:49:37 GMT"])
        }
    }

    @Test("an unknown path is a 404 naming the path")
    func unknownPath() async throws {
        try await withOrigin { origin in
            let response = try await TestClient.send(port: origin.port, "/missing?q=1")
            #expect(response.status == 404)
            #expect(response.text == "no route for /missing?q=1")
        }
    }

    @Test("an exact path-with-query route wins; otherwise the path without the query matches")
    func queryMatching() async throws {
        try await withOrigin { origin in
            origin.route("/q", LoopbackRoute(body: "plain"))
            origin.route("/q?v=2", LoopbackRoute(body: "two"))
            let answer1 = try await TestClient.send(port: origin.port, "/q?v=1")
            #expect(answer1.text == "plain")
            let answer2 = try await TestClient.send(port: origin.port, "/q?v=2")
            #expect(answer2.text == "two")
            #expect(origin.requestCount(for: "/q") == 2)
            #expect(origin.requestCount(for: "/q?v=2") == 1)
        }
    }

    @Test("If-None-Match with the route's ETag (weakly, in a list, or *) → 304 without a body")
    func ifNoneMatch() async throws {
        try await withOrigin { origin in
            origin.route(
                "/e",
                LoopbackRoute(
                    headers: [("Cache-Control", "max-age=60"), ("Content-Type", "text/plain"), ("Vary", "Accept")],
                    body: "payload", etag: "\"v1\""
                )
            )
            for value in ["\"v1\"", "W/\"v1\"", "\"x\", \"v1\"", "*"] {
                let response = try await TestClient.send(port: origin.port, "/e", headers: [("If-None-Match", value)])
                #expect(response.status == 304, "If-None-Match: \(value)")
                #expect(response.body.isEmpty)
                #expect(response.header("ETag") == "\"v1\"")
                #expect(response.header("Cache-Control") == "max-age=60")
                #expect(response.header("Vary") == "Accept")
                #expect(response.header("Date") != nil)
                #expect(response.header("Content-Type") == nil)
            }
            let other = try await TestClient.send(port: origin.port, "/e", headers: [("If-None-Match", "\"v2\"")])
            #expect(other.status == 200)
            #expect(other.text == "payload")
        }
    }

    @Test("If-Modified-Since equal to or after Last-Modified → 304; earlier → 200")
    func ifModifiedSince() async throws {
        try await withOrigin { origin in
            origin.route("/m", LoopbackRoute(body: "dated", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"))
            let same = try await TestClient.send(port: origin.port, "/m", headers: [("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")])
            #expect(same.status == 304)
            #expect(same.body.isEmpty)
            #expect(same.header("Last-Modified") == "Sun, 06 Nov 1994 08:49:37 GMT")
            let later = try await TestClient.send(port: origin.port, "/m", headers: [("If-Modified-Since", "Mon, 07 Nov 1994 00:00:00 GMT")])
            #expect(later.status == 304)
            let earlier = try await TestClient.send(port: origin.port, "/m", headers: [("If-Modified-Since", "Sat, 05 Nov 1994 00:00:00 GMT")])
            #expect(earlier.status == 200)
            #expect(earlier.text == "dated")
        }
    }

    @Test("HEAD carries the GET body's Content-Length but no body, and the connection stays usable")
    func head() async throws {
        try await withOrigin { origin in
            origin.route("/h", LoopbackRoute(body: "twelve bytes"))
            origin.route("/g", LoopbackRoute(body: .generated(count: 5_000_000)))
            try await TestClient.withConnection(port: origin.port) { send in
                let head = try await send(.HEAD, "/h", [])
                #expect(head.status == 200)
                #expect(head.header("Content-Length") == "12")
                #expect(head.body.isEmpty)
                let generated = try await send(.HEAD, "/g", [])
                #expect(generated.header("Content-Length") == "5000000")
                #expect(generated.body.isEmpty)
                let get = try await send(.GET, "/h", [])
                #expect(get.text == "twelve bytes")
            }
            #expect(origin.connectionCount == 1)
        }
    }

    @Test("the request log, counts and reset")
    func counts() async throws {
        try await withOrigin { origin in
            origin.route("/c", LoopbackRoute(body: "c"))
            _ = try await TestClient.send(port: origin.port, "/c", headers: [("X-Trace", "1")])
            _ = try await TestClient.send(port: origin.port, "/c?page=2")
            _ = try await TestClient.send(.POST, port: origin.port, "/other")
            #expect(origin.requestCount(for: "/c") == 2)
            #expect(origin.requestCount(for: "/c?page=2") == 1)
            #expect(origin.requestCount(for: "/other") == 1)
            #expect(origin.connectionCount == 3)
            let log = origin.receivedRequests
            #expect(log.map(\.path) == ["/c", "/c?page=2", "/other"])
            #expect(log.map(\.method) == ["GET", "GET", "POST"])
            #expect(log[0].header("x-trace") == "1")
            #expect(log[0].headerValues("X-TRACE") == ["1"])
            origin.resetCounts()
            #expect(origin.requestCount(for: "/c") == 0)
            #expect(origin.receivedRequests.isEmpty)
            #expect(origin.connectionCount == 0)
        }
    }

    @Test("a dynamic route computes each answer from the request")
    func dynamicRoute() async throws {
        try await withOrigin { origin in
            let counter = Mutex(0)
            origin.route("/dyn", handler: { request in
                let count = counter.withLock { value in
                    value += 1
                    return value
                }
                return LoopbackRoute(body: "\(count) \(request.header("Accept-Language") ?? "-")")
            })
            let answer3 = try await TestClient.send(port: origin.port, "/dyn", headers: [("Accept-Language", "fr")])
            #expect(answer3.text == "1 fr")
            let answer4 = try await TestClient.send(port: origin.port, "/dyn")
            #expect(answer4.text == "2 -")
        }
    }

    @Test("keep-alive: two requests on one socket are one connection; Connection: close is honoured")
    func keepAlive() async throws {
        try await withOrigin { origin in
            origin.route("/k", LoopbackRoute(body: "k"))
            try await TestClient.withConnection(port: origin.port) { send in
                let answer5 = try await send(.GET, "/k", [])
                #expect(answer5.text == "k")
                let answer6 = try await send(.GET, "/k", [])
                #expect(answer6.text == "k")
            }
            #expect(origin.connectionCount == 1)
            #expect(origin.requestCount(for: "/k") == 2)

            let closing = try await TestClient.send(port: origin.port, "/k", headers: [("Connection", "close")])
            #expect(closing.header("Connection") == "close")
            #expect(origin.connectionCount == 2)
        }
    }

    @Test("a delayed route answers no sooner than its delay")
    func delay() async throws {
        try await withOrigin { origin in
            origin.route("/slow", LoopbackRoute(body: "late", delay: .milliseconds(300)))
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await TestClient.send(port: origin.port, "/slow")
            let elapsed = clock.now - start
            #expect(response.text == "late")
            #expect(elapsed >= .milliseconds(300))
        }
    }

    @Test("a gated route holds its answer until the gate opens; other routes answer meanwhile")
    func gate() async throws {
        try await withOrigin { origin in
            let gate = LoopbackGate()
            var held = LoopbackRoute(body: "released")
            held.gate = gate
            origin.route("/held", held)
            origin.route("/free", LoopbackRoute(body: "free"))
            async let heldResponse = TestClient.send(port: origin.port, "/held")
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(30))
            while gate.waitingCount == 0, clock.now < deadline { await Task.yield() }
            #expect(gate.waitingCount == 1)
            let free = try await TestClient.send(port: origin.port, "/free")
            #expect(free.text == "free")
            #expect(gate.waitingCount == 1)
            gate.open()
            let released = try await heldResponse
            #expect(released.text == "released")
            #expect(gate.waitingCount == 0)
        }
    }

    @Test("a generated 1 MiB body has the deterministic pattern")
    func generatedBody() async throws {
        try await withOrigin { origin in
            let size = 1 << 20
            origin.route("/big", LoopbackRoute(headers: [("Content-Type", "application/octet-stream")], body: .generated(count: size)))
            let response = try await TestClient.send(port: origin.port, "/big")
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == String(size))
            #expect(response.body.count == size)
            let mismatch = response.body.indices.first { response.body[$0] != UInt8($0 % 251) }
            #expect(mismatch == nil)
            #expect(LoopbackRoute.Body.generated(count: size).count == size)
        }
    }

    @Test("HTTPS: a client trusting the embedded certificate gets the answer (by IP and by localhost); others fail")
    func https() async throws {
        try await withOrigin(tls: true) { origin in
            #expect(origin.baseURL == "https://127.0.0.1:\(origin.port)")
            origin.route("/t", LoopbackRoute(body: "secure"))
            let byIP = try await TestClient.send(port: origin.port, "/t", security: .tls(serverHostname: nil))
            #expect(byIP.status == 200)
            #expect(byIP.text == "secure")
            let byName = try await TestClient.send(port: origin.port, "/t", security: .tls(serverHostname: "localhost"))
            #expect(byName.text == "secure")
            await #expect(throws: (any Error).self) {
                try await TestClient.send(port: origin.port, "/t", security: .tls(serverHostname: "localhost", trustLoopbackCertificate: false))
            }
        }
    }

    @Test("the certificate helpers: PEM file and public key pin")
    func certificate() throws {
        let directory = NSTemporaryDirectory() + "loopback-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try LoopbackCertificate.writeCertificate(to: directory)
        #expect(path.hasSuffix("/cert.pem"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == LoopbackCertificate.certificatePEM)
        #expect(LoopbackCertificate.publicKeyPin == "sha256//" + LoopbackCertificate.publicKeySHA256Base64)
        #expect(throws: LoopbackError.self) { try LoopbackCertificate.writeCertificate(to: directory + "/missing/dir") }
    }

    @Test("shutdown is idempotent")
    func shutdownTwice() async throws {
        let origin = try await LoopbackOrigin.start()
        try await origin.shutdown()
        try await origin.shutdown()
    }
}
