// EncryptedHTTPSCache: the encrypted HTTPS disk plugin switched on with one line. HTTPS responses are
// sealed with AES-256-GCM into their own disk backend, HTTP responses stay in the plain one; then every
// byte under the cache directory is scanned to show that nothing from the HTTPS response is readable.
import CacheChain
import CacheChainCurl
import CacheChainEncryption
import CacheChainLoopback
import Foundation

let secretBody = "balance: 1,234.56 EUR (account 7731)"
let secretHeader = "session-7f3a9c"
let publicBody = "public timetable"

let secure = try await LoopbackOrigin.start(tls: true)
let plain = try await LoopbackOrigin.start()
secure.route("/account/7731", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("X-Session", secretHeader)], body: secretBody))
plain.route("/timetable", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: publicBody))

let scratch = NSTemporaryDirectory() + "cachechain-encrypted-example-\(UUID().uuidString)"
let cacheDirectory = scratch + "/cache"
let keyPath = scratch + "/secrets/cache.key"   // keep keys away from the cache (and its backups)
try FileManager.default.createDirectory(atPath: scratch + "/secrets", withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: scratch) }

let keys = try KeyFileProvider(path: keyPath)   // created with a random key, mode 0600
// From async code, open a disk cache with `DiskStorage.open`: SQLite and the directory checks run off the pool.
let plainDisk = try await DiskStorage.open(configuration: .init(directory: cacheDirectory))
var configuration = HTTPCacheClient.Configuration(storage: plainDisk)
// The one line that switches the plugin on:
configuration.encryptHTTPS(with: EncryptedStorage(wrapping: try DiskStorage(directory: cacheDirectory + "/encrypted"), keys: keys))
let caFile = try LoopbackCertificate.writeCertificate(to: scratch)
let client = HTTPCacheClient(transport: CurlTransport(configuration: .init(caFile: caFile)), configuration: configuration)

for (scheme, url) in [("https", secure.url("/account/7731")), ("http", plain.url("/timetable"))] {
    for attempt in 1...2 {
        let response = try await client.data(for: HTTPRequest(url: url))
        print("\(scheme) GET #\(attempt): \(response.cacheStatus.rawValue.uppercased()) \(response.head.status.code)")
    }
}

/// Every regular file under a directory, with its bytes.
func filesUnder(_ directory: String) -> [(path: String, bytes: Data)] {
    let names = (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String]) ?? []
    return names.compactMap { name in
        let path = directory + "/" + name
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let bytes = FileManager.default.contents(atPath: path) else { return nil }
        return (path, bytes)
    }
}

/// "yes" when `text` occurs in any of the files.
func found(_ text: String, in files: [(path: String, bytes: Data)]) -> String {
    files.contains { $0.bytes.range(of: Data(text.utf8)) != nil } ? "yes" : "no"
}

let files = filesUnder(cacheDirectory)
let plainFiles = files.filter { !$0.path.hasPrefix(cacheDirectory + "/encrypted/") }
print("scanned \(files.count) files, \(files.reduce(0) { $0 + $1.bytes.count }) bytes under the cache directory")
print("https body in clear: \(found(secretBody, in: files)); https header in clear: \(found(secretHeader, in: files)); https URL in clear: \(found("/account/7731", in: files))")
print("http body in the plain tier: \(found(publicBody, in: plainFiles))")

let mode = (try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int) ?? 0
print("key file mode: \(String(mode, radix: 8))")

// Logout: destroy the key. Every entry sealed with it is unreadable for good, and with no current key
// the plugin refuses to store HTTPS responses.
if let keyID = keys.currentKey?.id { _ = try keys.destroyKey(withID: keyID) }
let afterLogout = try await client.data(for: HTTPRequest(url: secure.url("/account/7731")))
let reason = afterLogout.trace.first { $0.code == .encryption }.map { "\($0)" } ?? "no encryption reason"
print("after destroying the key: https GET: \(afterLogout.cacheStatus.rawValue.uppercased()) (\(reason))")
print("origin saw /account/7731 \(secure.requestCount(for: "/account/7731"))×, /timetable \(plain.requestCount(for: "/timetable"))×")

try await secure.shutdown()
try await plain.shutdown()
