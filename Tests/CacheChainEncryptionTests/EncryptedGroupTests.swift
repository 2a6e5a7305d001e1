import CacheChainCore
@testable import CacheChainEncryption
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `EncryptedStorage` and cache groups (RFC 9875, issue 45.9): the group names never reach the wrapped backend in
/// clear (keyed HMAC tags instead), and a group invalidation goes through the wrapped backend's tag index.
@Suite("EncryptedStorage: cache groups by HMAC tag")
struct EncryptedGroupTests {
    static let group = "secret-group-7f3a"

    func grouped(_ path: String, _ groups: String, authority: String = "groups.test") -> CacheEntry {
        var request = HTTPRequest(method: .get, scheme: "https", authority: authority, path: path)
        request.headerFields[.accept] = "*/*"
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=600"
        response.headerFields[HTTPField.Name("Cache-Groups")!] = groups
        return CacheEntry(request: request, cached: CachedResponse(response: response, body: "grouped", requestTime: Date()))
    }

    @Test("no file of the encrypted disk cache holds the group name or the origin in clear")
    func noGroupNameOnDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("encrypted-groups-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskStorage(directory: directory.path, capacity: 16 << 20, durability: .durable)
        let storage = EncryptedStorage(wrapping: disk, keys: InMemoryKeyProvider(key: try .random()))
        let entries = [grouped("/g/1", "\"\(Self.group)\""), grouped("/g/2", "\"other\", \"\(Self.group)\"")]
        for entry in entries { try await storage.store(entry) }
        try await storage.flushPendingWrites()
        var files = 0
        let walker = FileManager.default.enumerator(atPath: directory.path)
        while let name = walker?.nextObject() as? String {
            let path = directory.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            files += 1
            #expect(!contains(bytes, Self.group), "\(name) holds the group name in clear")
            #expect(!contains(bytes, "groups.test"), "\(name) holds the origin in clear")
        }
        #expect(files > 0)
        try await storage.removeEntries(inGroups: [Self.group], origin: "https://groups.test")
        for entry in entries { #expect(try await storage.entries(for: entry.key).isEmpty, "\(entry.key)") }
    }

    @Test("a group invalidation removes the group's entries on the origin through the tag index, visiting no other entry")
    func removesThroughTag() async throws {
        let wrapped = SameTargetRemovalTests.CountingStorage()
        let storage = EncryptedStorage(wrapping: wrapped, keys: InMemoryKeyProvider(key: try .random()))
        let doomed = [grouped("/g/1", "\"a\""), grouped("/g/2", "\"b\", \"a\"")]
        let kept = [grouped("/g/3", "\"b\""), grouped("/g/1", "\"a\"", authority: "other.test")]
        for entry in doomed + kept { try await storage.store(entry) }
        var names: [String] = []
        for key in try await wrapped.keys() { for sealed in try await wrapped.entries(for: key) { names += sealed.cached.userInfo.names } }
        #expect(names.filter { $0.hasPrefix("cachechain-group-") }.count == 5, "one tag per group of each entry: \(names)")
        try await storage.removeEntries(inGroups: ["a"], origin: "https://groups.test")
        for entry in doomed { #expect(try await storage.entries(for: entry.key).isEmpty, "\(entry.key)") }
        for entry in kept { #expect(try await storage.entries(for: entry.key).count == 1, "\(entry.key)") }
        #expect(wrapped.fullVisits.withLock { $0 } == 0, "no entry was visited outside the tag index")
    }
}
