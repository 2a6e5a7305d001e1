import CacheChainLoopback
import NIOHTTP1
import Testing

/// Waits (yielding, no timer) until `condition` holds or 30 s have passed; returns whether it held.
func eventually(_ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(30))
    while !condition() {
        guard clock.now < deadline else { return false }
        await Task.yield()
    }
    return true
}

@Suite("LoopbackOrigin over HTTP/2")
struct LoopbackHTTP2Tests {
    @Test("HTTPS negotiates h2 with a client that offers it: routes, 304, HEAD, 404 and the log as over HTTP/1.1")
    func routesOverHTTP2() async throws {
        try await withOrigin(tls: true) { origin in
            #expect(origin.offersHTTP2)
            origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Content-Type", "text/plain")], body: "hello", etag: "\"v1\""))
            try await HTTP2TestClient.withConnection(port: origin.port) { client in
                let ok = try await client.send("/a", headers: [("X-Trace", "1")])
                #expect(ok.status == 200)
                #expect(ok.text == "hello")
                #expect(ok.header("Cache-Control") == "max-age=60")
                #expect(ok.header("ETag") == "\"v1\"")
                #expect(ok.header("Content-Length") == "5")
                #expect(ok.header("Date") != nil)
                #expect(ok.header("Connection") == nil)

                let notModified = try await client.send("/a", headers: [("If-None-Match", "W/\"v1\"")])
                #expect(notModified.status == 304)
                #expect(notModified.body.isEmpty)
                #expect(notModified.header("ETag") == "\"v1\"")
                #expect(notModified.header("Content-Type") == nil)

                let head = try await client.send("/a", method: .HEAD)
                #expect(head.status == 200)
                #expect(head.header("Content-Length") == "5")
                #expect(head.body.isEmpty)

                let missing = try await client.send("/missing")
                #expect(missing.status == 404)
                #expect(missing.text == "no route for /missing")
            }
            let log = origin.receivedRequests
            #expect(log.map(\.version) == [.http2, .http2, .http2, .http2])
            #expect(log.map(\.method) == ["GET", "GET", "HEAD", "GET"])
            #expect(log.first?.header("X-Trace") == "1")
            #expect(log.first?.header("Host") == "127.0.0.1:\(origin.port)", "the :authority pseudo-header is logged as Host")
            #expect(origin.requestCount(for: "/a") == 3)
            #expect(origin.connectionCount == 1)
        }
    }

    @Test("20 requests in flight at once on one connection (all held by a gate), then all answered")
    func concurrentStreams() async throws {
        try await withOrigin(tls: true) { origin in
            let gate = LoopbackGate()
            var held = LoopbackRoute(body: "released")
            held.gate = gate
            origin.route("/held", held)
            let count = 20
            let bodies = try await HTTP2TestClient.withConnection(port: origin.port) { client in
                try await withThrowingTaskGroup(of: String.self) { group in
                    for index in 0..<count {
                        group.addTask { try await client.send("/held?i=\(index)").text }
                    }
                    let allHeld = await eventually { gate.waitingCount == count }
                    #expect(allHeld, "only \(gate.waitingCount) of \(count) requests reached the origin")
                    #expect(origin.connectionCount == 1)
                    gate.open()
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
            }
            #expect(bodies == Array(repeating: "released", count: count))
            #expect(origin.requestCount(for: "/held") == count)
            #expect(origin.receivedRequests.allSatisfy { $0.version == .http2 })
            #expect(origin.connectionCount == 1)
        }
    }

    @Test("a stream reset mid-answer leaves the connection and its other streams working")
    func resetStream() async throws {
        try await withOrigin(tls: true) { origin in
            let gate = LoopbackGate()
            var held = LoopbackRoute(body: "released")
            held.gate = gate
            origin.route("/held", held)
            origin.route("/after", LoopbackRoute(body: "after"))
            try await HTTP2TestClient.withConnection(port: origin.port) { client in
                let abandoned = try await client.open("/held?abandoned")
                let kept = try await client.open("/held?kept")
                let abandonedTask = Task { try await abandoned.response() }
                let keptTask = Task { try await kept.response() }
                #expect(await eventually { gate.waitingCount == 2 })
                await abandoned.reset()
                let abandonedResult = await abandonedTask.result
                #expect(throws: (any Error).self) { try abandonedResult.get() }
                gate.open()
                #expect(try await keptTask.value.text == "released")
                #expect(try await client.send("/after").text == "after")
            }
            #expect(origin.connectionCount == 1)
            #expect(origin.requestCount(for: "/held") == 2)
        }
    }

    @Test("offersHTTP2: false keeps HTTPS on HTTP/1.1; plain HTTP never offers HTTP/2")
    func http1Only() async throws {
        let origin = try await LoopbackOrigin.start(tls: true, offersHTTP2: false)
        do {
            #expect(!origin.offersHTTP2)
            origin.route("/t", LoopbackRoute(body: "secure"))
            let response = try await TestClient.send(port: origin.port, "/t", security: .tls(serverHostname: "localhost"))
            #expect(response.text == "secure")
            await #expect(throws: (any Error).self, "an h2-only client cannot talk to an HTTP/1.1-only origin") {
                try await HTTP2TestClient.withConnection(port: origin.port) { client in try await client.send("/t") }
            }
            #expect(origin.receivedRequests.first?.version == .http1_1)
            #expect(origin.receivedRequests.allSatisfy { $0.version == .http1_1 })
            try await origin.shutdown()
        } catch {
            try await origin.shutdown()
            throw error
        }

        try await withOrigin(tls: false) { plain in
            #expect(!plain.offersHTTP2)
            plain.route("/p", LoopbackRoute(body: "plain"))
            _ = try await TestClient.send(port: plain.port, "/p")
            #expect(plain.receivedRequests.map(\.version) == [.http1_1])
        }
    }

    @Test("an HTTP/1.1 client over TLS falls back to HTTP/1.1 on an origin that offers h2", arguments: [true, false])
    func http1FallbackOverTLS(offersHTTP2: Bool) async throws {
        let origin = try await LoopbackOrigin.start(tls: true, offersHTTP2: offersHTTP2)
        origin.route("/f", LoopbackRoute(body: "fallback"))
        let response = try await TestClient.send(port: origin.port, "/f", security: .tls(serverHostname: "localhost"))
        #expect(response.text == "fallback")
        #expect(origin.receivedRequests.map(\.version) == [.http1_1])
        #expect(LoopbackHTTPVersion.http2.description == "HTTP/2")
        try await origin.shutdown()
    }
}
