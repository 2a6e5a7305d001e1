import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

/// Runs `cachechain-foundation-probe` (built next to the test bundle) with HOME, XDG_CACHE_HOME and TMPDIR in a
/// fresh directory, so what the shared default client and the ephemeral preset write can be seen.
struct FoundationProbe {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-probe-\(UUID().uuidString)")

    init() throws {
        for name in ["home", "cache", "tmp"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(name), withIntermediateDirectories: true)
        }
    }

    /// Runs the probe to its end.
    /// - Returns: Its output lines.
    func run(_ mode: String, _ origin: LoopbackOrigin, paths: [String]) async throws -> [String] {
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let executable = (bundle as NSString).deletingLastPathComponent + "/cachechain-foundation-probe"
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build the probe first: swift build --build-tests")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["XDG_CACHE_HOME"] = root.appendingPathComponent("cache").path
        environment["TMPDIR"] = root.appendingPathComponent("tmp").path + "/"
        let process = try ChildProcess(executable, [mode, origin.baseURL] + paths, environment: environment, standardOutput: .pipe)
        let text = process.readOutput()
        let status = await process.exitStatus()
        #expect(status == 0, "the probe failed: \(text)")
        return text.split(separator: "\n").map(String.init)
    }

    /// Every file (not directory) under the root, and every directory but the empty ones FoundationNetworking
    /// makes itself as soon as a configuration is created: `$XDG_CACHE_HOME/org.swift.foundation.URLCache/<process>`
    /// for `URLCache.shared` (and the ephemeral configuration's cache) and `~/.local/share/…` for
    /// `HTTPCookieStorage.shared`.
    var written: [String] {
        let base = root.path
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: base)) ?? []
        return paths.filter { path in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isDirectory), isDirectory.boolValue else {
                return true
            }
            let foundations = ["cache/org.swift.foundation.URLCache", "home/.local"]
            return !["home", "cache", "tmp"].contains(path) && !foundations.contains { path.hasPrefix($0) }
        }.sorted()
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite("The shared default client and the ephemeral preset")
struct SharedAndEphemeralTests {
    /// Runs `body` with a fresh probe directory and an origin serving `/small` and a 6 MiB `/large`; always
    /// stops the origin and removes the directory.
    private func withProbe(_ body: (FoundationProbe, LoopbackOrigin) async throws -> Void) async throws {
        let probe = try FoundationProbe()
        defer { probe.remove() }
        let origin = try await LoopbackOrigin.start()
        origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "small"))
        origin.route("/large", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 6 << 20)))
        do {
            try await body(probe, origin)
        } catch {
            try? await origin.shutdown()
            throw error
        }
        try await origin.shutdown()
    }

    @Test("the ephemeral preset caches in memory and writes nothing under any directory, even for a body the transport would spool")
    func ephemeralWritesNothing() async throws {
        try await withProbe { probe, origin in
            let lines = try await probe.run("ephemeral", origin, paths: ["/small", "/large"])
            #expect(lines == ["/small 1 200 5", "/small 2 200 5", "/large 1 200 \(6 << 20)", "/large 2 200 \(6 << 20)"])
            #expect(origin.requestCount(for: "/small") == 1 && origin.requestCount(for: "/large") == 1)
            #expect(probe.written == [])
        }
    }

    @Test("the shared default caches on disk under $XDG_CACHE_HOME/cachechain/<process> and serves it after a restart")
    func sharedDefaultSurvivesRestart() async throws {
        try await withProbe { probe, origin in
            _ = try await probe.run("shared", origin, paths: ["/small", "/large"])
            #expect(origin.requestCount(for: "/small") == 1)
            let lines = try await probe.run("shared", origin, paths: ["/small"])
            #expect(lines == ["/small 1 200 5", "/small 2 200 5"])
            #expect(origin.requestCount(for: "/small") == 1, "the restarted process hit the disk tier")
            let written = probe.written
            #expect(written.contains("cache/cachechain/cachechain-foundation-probe/cachechain-format"))
            // The default transport spools the large body into TMPDIR, as a file without a name (issue 25.4).
            #expect(written.allSatisfy { !$0.hasPrefix("tmp/") }, "nothing named is left in TMPDIR: \(written)")
        }
    }

    @Test("CacheChainURLProtocol registered globally makes URLSession.shared cache through the shared default")
    func registeredProtocol() async throws {
        try await withProbe { probe, origin in
            let lines = try await probe.run("registered", origin, paths: ["/small"])
            #expect(lines == ["/small 1 200 5", "/small 2 200 5"])
            #expect(origin.requestCount(for: "/small") == 1)
            #expect(probe.written.contains("cache/cachechain/cachechain-foundation-probe/cachechain-format"))
        }
    }

    @Test("the shared default is replaceable, and the default cache directory follows XDG")
    func replaceable() {
        // Set before it is ever read, so this process never opens a disk cache in the real home directory.
        let replacement = HTTPCacheClient.ephemeral()
        HTTPCacheClient.shared = replacement
        #expect(HTTPCacheClient.shared.revalidationQueue === replacement.revalidationQueue)
        #expect(HTTPCacheClient.defaultCacheDirectory.path.hasSuffix("/cachechain/" + ProcessInfo.processInfo.processName))
    }
}
