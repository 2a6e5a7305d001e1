import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization

/// A fresh directory per test (tests run in parallel), removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = "encryption") {
        path = NSTemporaryDirectory() + "cachechain-\(label)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Collects events for assertions.
final class EventLog: Sendable {
    private let events = Mutex<[CacheEvent]>([])
    var sink: CacheEventSink { CacheEventSink { event in self.events.withLock { $0.append(event) } } }
    var all: [CacheEvent] { events.withLock { $0 } }
}

/// Markers that must never reach the wrapped backend in clear.
enum Marker {
    static let host = "secret-host.example"
    static let path = "/private/account-7731"
    static let header = "X-Secret-Header-Value-9d1c"
    static let body = "BODY-MARKER-5f0e2b"
    static let tag = "tag-value-user-42"
}

/// An entry whose URL, fields, userInfo and body carry the markers.
func markedEntry(path: String = Marker.path, bodySize: Int = 4096, storedAt: TimeInterval = 0) -> CacheEntry {
    var body = Array(Marker.body.utf8)
    while body.count < bodySize { body += Array(" \(Marker.body) \(body.count)".utf8) }
    var entry = StorageConformanceSuite.makeEntry(path: path, body: PipelineBody(body.prefix(bodySize)), storedAt: storedAt, tag: Marker.tag)
    entry.key.authority = Marker.host
    entry.request.authority = Marker.host
    entry.request.headerFields[.authorization] = "Bearer \(Marker.header)"
    entry.cached.response.headerFields[HTTPField.Name("X-Secret")!] = Marker.header
    return entry
}

/// Every sealed entry of a wrapped memory backend.
func sealedEntries(_ storage: EncryptedStorage) async throws -> [CacheEntry] {
    var all: [CacheEntry] = []
    for key in try await storage.wrapped.keys() { all += try await storage.wrapped.entries(for: key) }
    return all
}

/// Whether `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let pattern = Array(needle.utf8)
    guard !pattern.isEmpty, haystack.count >= pattern.count else { return false }
    for start in 0...(haystack.count - pattern.count) where haystack[start] == pattern[0] {
        if Array(haystack[start..<start + pattern.count]) == pattern { return true }
    }
    return false
}

/// Every byte a sealed entry exposes to its backend: key, variant key, request, response, userInfo, body.
func exposedBytes(_ sealed: CacheEntry) throws -> [UInt8] {
    var bytes = Array(sealed.key.stringValue.utf8) + Array(sealed.variantKey.utf8)
    bytes += Array("\(sealed.request.method) \(sealed.request.scheme ?? "") \(sealed.request.authority ?? "") \(sealed.request.path ?? "")".utf8)
    for field in sealed.request.headerFields + sealed.cached.response.headerFields {
        bytes += Array(field.name.rawName.utf8) + Array(field.value.utf8)
    }
    for name in sealed.cached.userInfo.names {
        bytes += Array(name.utf8) + Array((sealed.cached.userInfo.jsonText(forName: name) ?? "").utf8)
    }
    return bytes + (try sealed.cached.body.collect())
}

/// Replaces a sealed entry's body (the envelope) in the wrapped backend.
func replaceEnvelope(of sealed: CacheEntry, with bytes: [UInt8], in storage: EncryptedStorage) async throws {
    var altered = sealed
    altered.cached.body = PipelineBody(bytes)
    try await storage.wrapped.store(altered)
}
