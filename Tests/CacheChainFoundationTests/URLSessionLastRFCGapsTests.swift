import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Issue 45's behaviours through a real `URLSession` configured with `usingCacheChain`, over libcurl to the
/// loopback origin: stale when the origin is unreachable (RFC 9111 §4.2.4) and `immutable` (RFC 8246).
@Suite("URLSession through CacheChain: stale when unreachable, immutable")
struct URLSessionLastRFCGapsTests {
    /// Over HTTP the origin drops the connection without a byte (a raw answer is an HTTP/1.1 byte stream); over
    /// HTTPS (HTTP/2 negotiated) it is shut down, so the connection is refused.
    @Test("a dropped or refused connection is answered with the stale copy, Cache-Status saying origin-unreachable", arguments: Scheme.allCases)
    func staleWhenUnreachable(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme, outer: [CacheStatusInterceptor()]) { net in
            net.origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "saved"))
            _ = try await net.fetch("/s")
            net.clock.advance(by: 3600)
            if scheme == .http {
                net.origin.route("/s", LoopbackRoute(rawResponse: ""))
            } else {
                try await net.origin.shutdown()
            }
            let offline = try await net.fetch("/s")
            #expect(offline.body == "saved")
            #expect(offline.response.statusCode == 200)
            #expect(offline.response.value(forHTTPHeaderField: "Cache-Status") == "CacheChain; fwd=stale; ttl=-3540; detail=origin-unreachable")
            #expect(net.probe.decisions == [.miss, .staleServed])
            // A forced reload asked for the origin's answer: the failure reaches the caller.
            await #expect(throws: (any Error).self) {
                _ = try await net.session.data(for: net.request("/s", policy: .reloadIgnoringLocalCacheData))
            }
        }
    }

    @Test("reloadRevalidatingCacheData serves a fresh immutable response without revalidating it; a forced reload fetches it", arguments: Scheme.allCases)
    func immutable(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            net.origin.route("/i", LoopbackRoute(headers: [("Cache-Control", "max-age=600, immutable")], body: "v1", etag: "\"v1\""))
            _ = try await net.fetch("/i")
            let reload = try await net.fetch("/i", policy: .reloadRevalidatingCacheData)
            #expect(reload.body == "v1")
            #expect(net.origin.requestCount(for: "/i") == 1, "not revalidated")
            var noCache = net.request("/i", policy: .reloadRevalidatingCacheData)
            noCache.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            _ = try await net.session.data(for: noCache)
            #expect(net.origin.requestCount(for: "/i") == 2, "a request no-cache revalidates it")
            #expect(net.origin.receivedRequests.last?.header("If-None-Match") == "\"v1\"")
            #expect(net.probe.decisions == [.miss, .hit, .revalidated])
        }
    }

    @Test("a POST response with explicit freshness and Content-Location equal to its URL answers a later GET", arguments: Scheme.allCases)
    func postThenGet(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            net.origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Content-Location", "/doc")], body: "posted"))
            var post = net.request("/doc", method: "POST")
            post.httpBody = Data("new".utf8)
            let (posted, _) = try await net.session.data(for: post)
            #expect(String(decoding: posted, as: UTF8.self) == "posted")
            let got = try await net.fetch("/doc")
            #expect(got.body == "posted")
            _ = try await net.session.data(for: post)
            #expect(net.origin.receivedRequests.map(\.method) == ["POST", "POST"], "the GET was served from the cache, the second POST was not")
            #expect(net.probe.decisions.contains(.hit))
        }
    }

    @Test("Accept-Language lists that differ in case, spacing and equal-weight order, or negotiate to a stored variant, share it", arguments: Scheme.allCases)
    func negotiatedVary(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            net.origin.route("/lang", LoopbackRoute(
                headers: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language"), ("Content-Language", "fr")], body: "bonjour"
            ))
            func fetch(_ languages: String) async throws -> String {
                var request = net.request("/lang")
                request.setValue(languages, forHTTPHeaderField: "Accept-Language")
                let (data, _) = try await net.session.data(for: request)
                return String(decoding: data, as: UTF8.self)
            }
            var bodies: [String] = []
            for languages in ["fr, de;q=0.5", "DE;q=0.50 ,FR", "fr;q=1.0, en;q=0.2"] {
                bodies.append(try await fetch(languages))
            }
            #expect(bodies == ["bonjour", "bonjour", "bonjour"])
            #expect(net.origin.requestCount(for: "/lang") == 1)
            #expect(net.probe.decisions == [.miss, .hit, .hit])
            _ = try await fetch("en, fr;q=0.5")
            #expect(net.origin.requestCount(for: "/lang") == 2, "English first: the origin is asked")
        }
    }

    /// Over HTTP only: a raw answer is an HTTP/1.1 byte stream.
    @Test("a response in an unknown transfer coding is delivered (read until the close) and then served from the cache")
    func unknownTransferCoding() async throws {
        try await withLoopbackSession(.http) { net in
            net.origin.route("/te", LoopbackRoute(rawResponse: "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nTransfer-Encoding: foo\r\n\r\nuntil close"))
            let first = try await net.fetch("/te")
            #expect(first.body == "until close")
            #expect(first.response.statusCode == 200)
            #expect(first.response.value(forHTTPHeaderField: "Transfer-Encoding") == nil)
            let second = try await net.fetch("/te")
            #expect(second.body == "until close")
            #expect(net.origin.requestCount(for: "/te") == 1)
            #expect(net.probe.decisions == [.miss, .hit])
        }
    }
}
