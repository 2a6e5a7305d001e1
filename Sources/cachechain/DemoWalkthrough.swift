import CacheChain
import CacheChainCurl
import CacheChainEncryption
import ArgumentParser
import CacheChainLoopback
import Foundation

/// The steps of `cachechain demo`, printed as a table as they run.
struct DemoWalkthrough {
    static let article = "/article"
    static let account = "/account/7731"
    static let secret = "balance: 1,234.56 EUR"

    let keepsDirectory: Bool

    func run() async throws {
        let http = try await LoopbackOrigin.start()
        let https = try await LoopbackOrigin.start(tls: true)
        http.route(Self.article, LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "Hello from the origin!", etag: "\"v1\""))
        https.route(Self.account, LoopbackRoute(headers: [("Cache-Control", "private, max-age=600")], body: Self.secret))
        let scratch = NSTemporaryDirectory() + "cachechain-demo-\(UUID().uuidString)"
        let directory = scratch + "/cache"
        let keyFile = scratch + "/cache.key"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer {
            if keepsDirectory { print("\nkept: cache \(directory), key \(keyFile)") } else { try? FileManager.default.removeItem(atPath: scratch) }
        }
        let clock = DemoClock()
        var configuration = HTTPCacheClient.Configuration(storage: try DiskStorage(directory: directory), clock: clock)
        configuration.encryptHTTPS(
            with: EncryptedStorage(wrapping: try DiskStorage(directory: directory + "/encrypted"), keys: try KeyFileProvider(path: keyFile))
        )
        let caFile = try LoopbackCertificate.writeCertificate(to: scratch)
        let client = HTTPCacheClient(transport: CurlTransport(configuration: .init(caFile: caFile)), configuration: configuration)

        print("CacheChain demo: HTTP origin \(http.url("")), HTTPS origin \(https.url("")), cache in \(directory)")
        print("HTTPS responses are encrypted (AES-256-GCM) in \(directory)/encrypted; the key is in \(keyFile)\n")
        let table = DemoTable()
        table.header()

        let article = try HTTPRequest(url: http.url(Self.article))
        let account = try HTTPRequest(url: https.url(Self.account))
        var response = try await client.data(for: article)
        table.row(1, "GET \(Self.article)", response, origin: http.requestCount(for: Self.article))
        response = try await client.data(for: article)
        table.row(2, "GET \(Self.article)", response, origin: http.requestCount(for: Self.article))
        clock.advance(by: 120)
        response = try await client.data(for: article, cachePolicy: .returnCacheDataElseLoad)
        table.row(3, "+2 min, returnCacheDataElseLoad", response, origin: http.requestCount(for: Self.article))
        response = try await client.data(for: article)
        table.row(4, "GET \(Self.article)", response, origin: http.requestCount(for: Self.article))
        response = try await client.data(for: account)
        table.row(5, "GET https \(Self.account)", response, origin: https.requestCount(for: Self.account), note: ", encrypted on disk")
        response = try await client.data(for: account)
        table.row(6, "GET https \(Self.account)", response, origin: https.requestCount(for: Self.account), note: ", decrypted")

        let scan = DirectoryScan(directory)
        let inClear = [Self.secret, Self.account].contains { scan.contains($0) }
        table.note(7, "scan \(scan.fileCount) files, \(scan.byteCount) bytes", "HTTPS body or URL in clear: \(inClear ? "YES" : "no")")
        let before = await client.configuration.storage.usage().entryCount
        try await client.removeAllCachedResponses()
        let after = await client.configuration.storage.usage().entryCount
        table.note(8, "purge --all", "removed \(before - after) entries, \(after) left")
        response = try await client.data(for: article)
        table.row(9, "GET \(Self.article)", response, origin: http.requestCount(for: Self.article))

        try await curlSteps(http: http, scratch: scratch, caFile: caFile, table: table)

        try await http.shutdown()
        try await https.shutdown()
        if inClear { throw CacheChainError(.storageFailed, "plaintext found under the cache directory") }
    }
}

extension DemoWalkthrough {
    /// Steps 10 and 11: the `get` subcommand itself, with curl's options, in a directory of its own (the demo's
    /// cache has an encrypted tier, which `get` refuses without its key).
    func curlSteps(http: LoopbackOrigin, scratch: String, caFile: String, table: DemoTable) async throws {
        http.route("/echo") { request in
            LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "\(request.method) \(request.header("X-Demo") ?? "-") " + String(decoding: request.body, as: UTF8.self))
        }
        http.route("/gone", LoopbackRoute(status: 404, headers: [("Cache-Control", "no-store")], body: "not here"))
        let reply = scratch + "/reply.txt"
        let common = ["--cache-dir", scratch + "/get-cache", "--no-progress", "--cacert", caFile]
        let get = try GetCommand.parse([http.url("/echo"), "-X", "PUT", "-H", "X-Demo: yes", "-d", "a=1", "-i", "-o", reply] + common)
        try await get.run()
        let text = (try? String(contentsOfFile: reply, encoding: .utf8)) ?? ""
        let lines = text.components(separatedBy: "\r\n")
        table.note(10, "get -X PUT -H -d -i -o reply.txt", "\(lines.first ?? "") … \(lines.last ?? "")")
        var exit = "0"
        do {
            try await GetCommand.parse([http.url("/gone"), "--fail"] + common).run()
        } catch let code as ExitCode {
            exit = "\(code.rawValue)"
        }
        table.note(11, "get --fail (a 404)", "exit \(exit), nothing on stdout")
    }
}

/// The demo's table: step, request, cache status, requests the origin has seen, and the decision's last reason.
struct DemoTable {
    func header() {
        print(Self.format("step", "request", "status", "origin", "why"))
        print(String(repeating: "─", count: 110))
    }

    func row(_ step: Int, _ request: String, _ response: PipelineResponse, origin: Int, note: String = "") {
        let why = (response.trace.last.map { "\($0)" } ?? "") + note
        print(Self.format("\(step)", request, "\(response.cacheStatus.label) \(response.head.status.code)", "\(origin)", why))
    }

    func note(_ step: Int, _ action: String, _ result: String) {
        print(Self.format("\(step)", action, "—", "—", result))
    }

    private static func format(_ step: String, _ request: String, _ status: String, _ origin: String, _ why: String) -> String {
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
        return pad(step, 5) + pad(request, 34) + pad(status, 17) + pad(origin, 7) + why
    }
}

/// Every regular file under a directory, searched for text.
struct DirectoryScan {
    private let contents: [Data]

    init(_ directory: String) {
        let names = (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String]) ?? []
        contents = names.compactMap { name in
            var isDirectory: ObjCBool = false
            let path = directory + "/" + name
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            return FileManager.default.contents(atPath: path)
        }
    }

    var fileCount: Int { contents.count }
    var byteCount: Int { contents.reduce(0) { $0 + $1.count } }

    /// Whether any file holds `text`.
    func contains(_ text: String) -> Bool { contents.contains { $0.range(of: Data(text.utf8)) != nil } }
}
