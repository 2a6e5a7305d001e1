import CacheChainLoopback
import Foundation
import Testing

/// `cachechain get` like curl (issue 44.7): quiet stderr unless `-v`/`--trace`, `-s`/`-S`, `-v`'s `>` and `<`
/// lines, `-I`, `-A`, `-m` (exit 28), `-w` with `%{http_code}` and `%{cache_status}`; and the other subcommands:
/// sizes with suffixes, the capacity `stats` shows, `ls --json`, the exit codes in `--help`. Subprocesses against a
/// loopback origin.
@Suite("cachechain get like curl: -s -S -v --trace -I -A -m -w; sizes, stats capacity, ls --json", .tags(.integration))
struct CLICurlLikeTests: BatchSubprocessSuite {
    @Test("stderr is quiet by default; --trace shows the cache's decisions; -v adds '>' and '<' lines; -s and -S as curl")
    func stderrOutput() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("X-Kind", "doc")], body: "the body"))
        origin.route("/live", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "live"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        let quiet = try await run(["get", origin.url("/doc")] + cache, in: directory)
        #expect(quiet.status == 0 && quiet.stdout == "the body")
        #expect(quiet.stderr.isEmpty, "no trace without -v or --trace: \(quiet.stderr)")
        let traced = try await run(["get", origin.url("/doc"), "--trace"] + cache, in: directory)
        #expect(traced.stderr.hasPrefix("HIT 200 \(origin.url("/doc"))\n  · fresh"), "\(traced.stderr)")
        #expect(traced.stdout == "the body")

        let missed = try await run(["get", origin.url("/live"), "-v", "-H", "X-Team: blue"] + cache, in: directory)
        #expect(missed.stdout == "live", "-v writes nothing but the body on stdout")
        let lines = missed.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "> GET /live HTTP/1.1", "\(missed.stderr)")
        #expect(lines.contains("> Host: 127.0.0.1:\(origin.port)"))
        #expect(lines.contains("> X-Team: blue"))
        #expect(lines.contains(">"))
        #expect(lines.contains("< HTTP/1.1 200 OK"))
        #expect(lines.contains("< Cache-Control: no-store"))
        #expect(lines.contains("<"))
        #expect(lines.contains("* MISS 200 \(origin.url("/live"))"))
        #expect(lines.contains { $0.hasPrefix("*   · ") }, "the trace as * lines")
        #expect(lines.contains("* key: GET \(origin.url("/live"))"))
        let hit = try await run(["get", origin.url("/doc"), "-v"] + cache, in: directory)
        #expect(hit.stderr.contains("* answered from the cache: nothing was sent to the origin\n> GET /doc HTTP/1.1\n"), "\(hit.stderr)")
        #expect(hit.stderr.contains("< X-Kind: doc\n"))
        #expect(hit.stderr.contains("* HIT 200 "))

        let down = "http://127.0.0.1:9/nothing-listens"
        let loud = try await run(["get", down] + cache, in: directory)
        #expect(loud.status == 1 && loud.stderr.contains("Error: GET \(down) failed"), "\(loud.stderr)")
        let silent = try await run(["get", down, "-s"] + cache, in: directory)
        #expect(silent.status == 1)
        #expect(silent.stderr.isEmpty, "-s prints nothing, not even the error: \(silent.stderr)")
        let shown = try await run(["get", down, "-s", "-S"] + cache, in: directory)
        #expect(shown.status == 1 && shown.stderr.contains("Error: GET \(down) failed"), "\(shown.stderr)")
        let silentVerbose = try await run(["get", origin.url("/doc"), "--silent", "--verbose"] + cache, in: directory)
        #expect(silentVerbose.stderr.contains("* HIT 200"), "-v is shown even with -s, as curl")
        try await origin.shutdown()
    }

    @Test("-I sends HEAD and prints the head; -A sets User-Agent (-H wins); -m exits 28; -w writes %{http_code} %{cache_status}")
    func requestAndWriteOut() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/echo", handler: { request in
            LoopbackRoute(headers: [("Cache-Control", "no-store"), ("X-Method", request.method), ("X-Agent", request.header("User-Agent") ?? "-")], body: "echo")
        })
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "the body"))
        origin.route("/slow", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "late", delay: .seconds(5)))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        let head = try await run(["get", origin.url("/echo"), "-I"] + cache, in: directory)
        #expect(head.status == 0)
        #expect(head.stdout.hasPrefix("HTTP/1.1 200 OK"), "\(head.stdout)")
        #expect(head.stdout.contains("X-Method: HEAD"))
        #expect(!head.stdout.contains("echo"), "the head only")
        #expect(try await run(["get", origin.url("/echo"), "-I", "-d", "a=1"] + cache, in: directory).status == 64)

        let agent = try await run(["get", origin.url("/echo"), "-i", "-A", "probe/1.0"] + cache, in: directory)
        #expect(agent.stdout.contains("X-Agent: probe/1.0"), "\(agent.stdout)")
        let overridden = try await run(["get", origin.url("/echo"), "-i", "--user-agent", "probe/1.0", "-H", "User-Agent: mine"] + cache, in: directory)
        #expect(overridden.stdout.contains("X-Agent: mine"))

        // The origin answers after 5 s: exit 28 and the message show that -m ended the request, not the answer.
        let slow = try await run(["get", origin.url("/slow"), "-m", "0.5"] + cache, in: directory)
        #expect(slow.status == 28, "curl's code for a timeout: \(slow.stderr)")
        #expect(slow.stderr.contains("took longer than -m 0.5 s"), "\(slow.stderr)")
        #expect(try await run(["get", origin.url("/doc"), "--max-time", "0"] + cache, in: directory).status == 64)

        let output = directory.appendingPathComponent("out").path
        let format = ["-o", output, "-w", "%{http_code} %{cache_status} %{size_download} %{num_redirects} %{method}\\n"]
        let miss = try await run(["get", origin.url("/doc")] + format + cache, in: directory)
        #expect(miss.stdout == "200 miss 8 0 GET", "\(miss.stdout)")
        let hit = try await run(["get", origin.url("/doc")] + format + cache, in: directory)
        #expect(hit.stdout == "200 hit 8 0 GET")
        let timed = try await run(["get", origin.url("/doc"), "--write-out", "%{time_total}%%", "-o", output] + cache, in: directory)
        #expect(timed.stdout.hasSuffix("%") && Double(timed.stdout.dropLast()) != nil, "\(timed.stdout)")
        let unknown = try await run(["get", origin.url("/doc"), "-w", "%{nope}"] + cache, in: directory)
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown variable %{nope}"), "\(unknown.stderr)")
        try await origin.shutdown()
    }

    @Test("sizes take K/M/G; stats shows the capacity the cache was created with; ls --json; --help lists exit codes 22 and 28")
    func sizesStatsAndListing() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "the body"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        #expect(try await run(["get", origin.url("/doc"), "--disk-capacity", "2M"] + cache, in: directory).status == 0)
        let stats = try await run(["stats"] + cache, in: directory)
        #expect(stats.stdout.contains("capacity:        2097152 (2.0 MiB)"), "\(stats.stdout)")
        #expect(try await run(["get", origin.url("/doc")] + cache, in: directory).status == 0)
        let json = try await run(["stats", "--json"] + cache, in: directory)
        #expect(json.stdout.contains("\"capacity\":2097152"), "a later get without --disk-capacity keeps it: \(json.stdout)")
        #expect(json.stdout.contains("\"capacity_recorded\":true"))
        #expect(try await run(["get", origin.url("/doc"), "--disk-capacity", "1.5G"] + cache, in: directory).status == 0)
        #expect(try await run(["stats"] + cache, in: directory).stdout.contains("capacity:        1610612736 (1.5 GiB)"))

        let listed = try await run(["ls", "--json"] + cache, in: directory)
        #expect(listed.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any], "\(listed.stdout)")
        #expect(object["url"] as? String == origin.url("/doc"))
        #expect(object["status"] as? Int == 200)
        #expect(object["bytes"] as? Int == 8)
        #expect(object["fresh"] as? Bool == true)
        #expect((object["ttl"] as? Int).map { (500...600).contains($0) } == true)
        #expect(listed.stderr.isEmpty, "no count line with --json")

        let help = try await run(["--help"], in: directory)
        for text in ["22 get --fail", "28 get -m", "64 invalid usage", "--generate-completion-script", "2G"] {
            #expect(help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(text), "--help lacks \(text)")
        }
        try await origin.shutdown()
    }
}
