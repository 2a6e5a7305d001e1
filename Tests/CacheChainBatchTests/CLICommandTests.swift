import CacheChain
import CacheChainLoopback
import Foundation
import Testing

/// `cachechain get/stats/ls/purge/explain/demo` as subprocesses, against loopback origins and a real cache directory.
@Suite("cachechain get, stats, ls, purge, explain and demo as subprocesses", .tags(.integration))
struct CLICommandTests: BatchSubprocessSuite {
    @Test("get: MISS in one process, HIT in the next with the same --cache-dir; -i prints the head; the origin is asked once")
    func getAcrossProcesses() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "cached body", etag: "\"e1\""))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        let first = try await run(["get", origin.url("/doc"), "--trace"] + cache, in: directory)
        #expect(first.status == 0)
        #expect(first.stdout == "cached body")
        #expect(first.stderr.contains("MISS 200"))
        #expect(first.stderr.contains("storable: stored"))
        let second = try await run(["get", origin.url("/doc"), "-i", "-v"] + cache, in: directory)
        #expect(second.status == 0)
        #expect(second.stderr.contains("HIT 200"))
        #expect(second.stderr.contains("key: GET \(origin.url("/doc"))"))
        #expect(second.stdout.hasPrefix("HTTP/1.1 200"))
        #expect(second.stdout.lowercased().contains("etag: \"e1\""))
        #expect(origin.requestCount(for: "/doc") == 1)

        let cold = try await run(["get", origin.url("/cold"), "--policy", "returnCacheDataDontLoad"] + cache, in: directory)
        #expect(cold.status == 1)
        #expect(cold.stderr.contains("nothing usable is stored"))
        #expect(origin.requestCount(for: "/cold") == 0)
        let bad = try await run(["get", "not a url"] + cache, in: directory)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("not an absolute http or https URL"))
        try await origin.shutdown()
    }

    @Test("get like curl: -X, -H, -d (POST, form type, @file without line breaks), -o, -i with reason phrase and body, --fail exits 22")
    func curlOptions() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/echo", handler: { request in
            let echoed = "\(request.method) \(request.header("X-Team") ?? "-") \(request.header("Content-Type") ?? "-") "
                + String(decoding: request.body, as: UTF8.self)
            return LoopbackRoute(headers: [("Cache-Control", "no-store")], body: echoed)
        })
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("X-Kind", "doc")], body: "the body"))
        origin.route("/missing", LoopbackRoute(status: 404, headers: [("Cache-Control", "no-store")], body: "not here"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        let posted = try await run(["get", origin.url("/echo"), "-d", "a=1", "-d", "b=2", "-H", "X-Team: blue"] + cache, in: directory)
        #expect(posted.status == 0)
        #expect(posted.stdout == "POST blue application/x-www-form-urlencoded a=1&b=2")
        let file = directory.appendingPathComponent("query.json")
        try Data("{\"q\":\n\"cats\"}\r\n".utf8).write(to: file)
        let query = try await run(
            ["get", origin.url("/echo"), "-X", "QUERY", "-H", "Content-Type: application/json", "--data", "@" + file.path] + cache,
            in: directory
        )
        #expect(query.stdout == "QUERY - application/json {\"q\":\"cats\"}")

        let headFile = directory.appendingPathComponent("head.txt")
        #expect(try await run(["get", origin.url("/doc"), "-i", "-o", headFile.path] + cache, in: directory).status == 0)
        let included = String(decoding: try Data(contentsOf: headFile), as: UTF8.self)  // the bytes, CRLFs included
        #expect(included.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(included.contains("\r\nX-Kind: doc\r\n"))
        #expect(included.contains("\r\nCache-Status: CacheChain; fwd=uri-miss; fwd-status=200; stored\r\n"))
        let hit = try await run(["get", origin.url("/doc"), "--include"] + cache, in: directory)
        // max-age=600 less the seconds between the two runs (the real clock).
        let ttl = hit.stdout.split(separator: "\n").first { $0.hasPrefix("Cache-Status: CacheChain; hit; ttl=") }
            .flatMap { Int($0.dropFirst("Cache-Status: CacheChain; hit; ttl=".count)) }
        #expect(ttl.map { (540...600).contains($0) } == true, "\(hit.stdout)")
        #expect(included.hasSuffix("\r\n\r\nthe body"), "header fields, a blank line, then the body")
        let output = directory.appendingPathComponent("out.txt")
        let saved = try await run(["get", origin.url("/doc"), "-o", output.path] + cache, in: directory)
        #expect(saved.status == 0)
        #expect(saved.stdout.isEmpty)
        #expect(try String(contentsOf: output, encoding: .utf8) == "the body")

        let missing = try await run(["get", origin.url("/missing")] + cache, in: directory)
        #expect(missing.status == 0)
        #expect(missing.stdout == "not here")
        let failed = try await run(["get", origin.url("/missing"), "--fail", "-i"] + cache, in: directory)
        #expect(failed.status == 22)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.contains("the requested URL returned error: 404 Not Found"))
        let badHeader = try await run(["get", origin.url("/doc"), "-H", "no colon"] + cache, in: directory)
        #expect(badHeader.status == 64)
        #expect(badHeader.stderr.contains("is not a header field"))
        try await origin.shutdown()
    }

    @Test("get --progress reports the download on stderr; --no-progress prints none")
    func progress() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/big", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: .generated(count: 3 << 20)))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        let shown = try await run(["get", origin.url("/big"), "--progress"] + cache, in: directory)
        #expect(shown.status == 0)
        #expect(shown.stderr.contains("received 1.0 MiB of 3.0 MiB (33%)"))
        #expect(shown.stderr.contains("received 3.0 MiB of 3.0 MiB (100%)\n"))
        let hidden = try await run(["get", origin.url("/big"), "--no-progress"] + cache, in: directory)
        #expect(!hidden.stderr.contains("received"))
        try await origin.shutdown()
    }

    @Test("stats, ls and purge: two entries listed, purge --prefix removes one, --all the rest; no selector exits 64")
    func management() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/a/1", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "one"))
        origin.route("/b/2", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "two"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        for path in ["/a/1", "/b/2"] { #expect(try await run(["get", origin.url(path)] + cache, in: directory).status == 0) }

        let stats = try await run(["stats", "--json"] + cache, in: directory)
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("\"entries\":2"))
        #expect(stats.stdout.contains("\"format\":5"))
        let listing = try await run(["ls"] + cache, in: directory)
        #expect(listing.stdout.split(separator: "\n").count == 2)
        #expect(listing.stdout.contains("GET \(origin.url("/a/1"))  200  3 B"))
        #expect(listing.stdout.contains("fresh, "))
        #expect(try await run(["ls", "--prefix", origin.url("/b/")] + cache, in: directory).stdout.split(separator: "\n").count == 1)

        let purged = try await run(["purge", "--prefix", origin.url("/a/")] + cache, in: directory)
        #expect(purged.status == 0)
        #expect(purged.stdout == "removed 1 entry; 1 left")
        #expect(!(try await run(["ls"] + cache, in: directory)).stdout.contains("/a/1"))
        #expect(try await run(["purge", "--all"] + cache, in: directory).stdout == "removed 1 entry; 0 left")
        let noSelector = try await run(["purge"] + cache, in: directory)
        #expect(noSelector.status == 64)
        #expect(noSelector.stderr.contains("exactly one of --url, --prefix, --group, --since, --expired, --stale-older-than or --all"))
        try await origin.shutdown()
    }

    @Test("purge --stale-older-than and --expired print how many expired entries they removed; a fresh one stays")
    func purgeExpired() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        func dated(_ secondsAgo: TimeInterval) -> (String, String) {
            ("Date", HTTPDate.format(Date().addingTimeInterval(-secondsAgo)))
        }
        // Stale for about 2 h and about 10 min; fresh for 10 min.
        origin.route("/old", LoopbackRoute(headers: [dated(7_260), ("Cache-Control", "max-age=60")], body: "old", etag: "\"o\""))
        origin.route("/recent", LoopbackRoute(headers: [dated(660), ("Cache-Control", "max-age=60")], body: "recent", etag: "\"r\""))
        origin.route("/fresh", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "fresh"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        for path in ["/old", "/recent", "/fresh"] { #expect(try await run(["get", origin.url(path)] + cache, in: directory).status == 0) }

        let older = try await run(["purge", "--stale-older-than", "1h"] + cache, in: directory)
        #expect(older.status == 0)
        #expect(older.stdout == "removed 1 expired entry; 2 left")
        let expired = try await run(["purge", "--expired"] + cache, in: directory)
        #expect(expired.stdout == "removed 1 expired entry; 1 left")
        #expect(try await run(["purge", "--expired"] + cache, in: directory).stdout == "removed 0 expired entries; 1 left")
        #expect(try await run(["ls"] + cache, in: directory).stdout.contains("/fresh"))
        let badDuration = try await run(["purge", "--stale-older-than", "soon"] + cache, in: directory)
        #expect(badDuration.status == 64)
        #expect(badDuration.stderr.contains("not a duration such as 90s, 15m, 1h30m or 7d"))
        let twoSelectors = try await run(["purge", "--expired", "--all"] + cache, in: directory)
        #expect(twoSelectors.status == 64)
        try await origin.shutdown()
    }

    @Test("explain: a max-age response is FRESH with its lifetime and validator; no-cache says so; nothing stored exits 1")
    func explain() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/fresh", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "f", etag: "\"x\""))
        origin.route("/nc", LoopbackRoute(headers: [("Cache-Control", "no-cache")], body: "n", lastModified: "Mon, 02 Nov 2026 10:00:00 GMT"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        for path in ["/fresh", "/nc"] { _ = try await run(["get", origin.url(path)] + cache, in: directory) }

        let fresh = try await run(["explain", origin.url("/fresh")] + cache, in: directory)
        #expect(fresh.status == 0)
        #expect(fresh.stdout.contains("lifetime:  600 s — Cache-Control: max-age=600"))
        #expect(fresh.stdout.contains("verdict:   FRESH"))
        #expect(fresh.stdout.contains("validator: ETag \"x\""))
        let noCache = try await run(["explain", origin.url("/nc")] + cache, in: directory)
        #expect(noCache.stdout.contains("no-cache — every use must be validated"))
        #expect(noCache.stdout.contains("validator: Last-Modified"))
        let nothing = try await run(["explain", origin.url("/never")] + cache, in: directory)
        #expect(nothing.status == 1)
        #expect(nothing.stdout.contains("Nothing is stored for GET"))
        try await origin.shutdown()
    }

    @Test("get --encrypt-https: the HTTPS body is sealed in <dir>/encrypted; without the flag ls says the tier was not read")
    func encryptedGet() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: true)
        let marker = "CLI-SECRET-BODY-3301"
        origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: marker))
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        let cacheDirectory = directory.appendingPathComponent("cache").path
        let keyFile = directory.appendingPathComponent("cache.key").path
        let encrypted = ["--cache-dir", cacheDirectory, "--encrypt-https", "--key-file", keyFile]
        for (expected, create) in [("MISS", ["--create-key"]), ("HIT", [])] {
            let get = try await run(["get", origin.url("/s"), "--trace", "--cacert", certificate] + encrypted + create, in: directory)
            #expect(get.stdout == marker)
            #expect(get.stderr.contains("\(expected) 200"))
        }
        let files = (FileManager.default.enumerator(atPath: cacheDirectory)?.allObjects as? [String]) ?? []
        let inClear = files.contains { FileManager.default.contents(atPath: cacheDirectory + "/" + $0)?.range(of: Data(marker.utf8)) != nil }
        #expect(!inClear)
        #expect(try await run(["ls"] + encrypted, in: directory).stdout.contains(origin.url("/s")))
        let withoutKey = try await run(["ls", "--cache-dir", cacheDirectory], in: directory)
        #expect(withoutKey.stderr.contains("add --encrypt-https --key-file"))
        let missingKey = try await run(["ls", "--cache-dir", cacheDirectory, "--encrypt-https"], in: directory)
        #expect(missingKey.status == 64)
        try await origin.shutdown()
    }

    @Test("demo: MISS, HIT, STALE, REVALIDATED, encrypted MISS and HIT, no plaintext, purge, MISS — in that order")
    func demo() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try await run(["demo"], in: directory)
        #expect(demo.status == 0, "\(demo.stderr)")
        let statuses = demo.stdout.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let step = words.first, Int(step) != nil else { return nil }
            return ["MISS", "HIT", "STALE", "REVALIDATED", "—"].first { word in words.contains { $0 == word } }
        }
        #expect(statuses == ["MISS", "HIT", "STALE", "REVALIDATED", "MISS", "HIT", "—", "—", "MISS", "—", "—"])
        #expect(demo.stdout.contains("HTTP/1.1 200 OK … PUT yes a=1"), "get with -X -H -d -i -o, run by the demo")
        #expect(demo.stdout.contains("exit 22, nothing on stdout"), "get --fail on a 404, run by the demo")
        #expect(demo.stdout.contains("HTTPS body or URL in clear: no"))
        #expect(demo.stdout.contains("removed 2 entries, 0 left"))
    }

    @Test("--help of the root and every subcommand exits 0 and names each option", arguments: [
        ([String](), ["demo", "get", "stats", "ls", "purge", "explain", "batch"]),
        (["demo"], ["--keep"]),
        (["get"], ["--cache-dir", "--policy", "--cacert", "--include", "--header", "--request", "--data", "--output", "--fail", "--verbose", "--progress", "--encrypt-https", "--key-file", "--create-key", "Exit codes", "--silent", "--show-error", "--trace", "--location", "--max-redirs", "--head", "--user-agent", "--max-time", "--write-out"]),
        (["stats"], ["--cache-dir", "--json", "Exit codes"]),
        (["ls"], ["--cache-dir", "--prefix", "--json", "Exit codes"]),
        (["purge"], ["--url", "--prefix", "--group", "--origin", "--since", "--expired", "--stale-older-than", "--all", "Exit codes"]),
        (["explain"], ["--cache-dir", "Exit codes"]),
    ])
    func help(command: [String], mentions: [String]) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let help = try await run(command + ["--help"], in: directory)
        #expect(help.status == 0)
        for word in mentions { #expect(help.stdout.contains(word), "\(command) --help lacks \(word)") }
    }
}
