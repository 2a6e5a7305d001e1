import CacheChainCore
import Foundation
import HTTPTypes

/// The value stored in an entry hash's variant field:
/// `CCR1 | kind (I inline, R reference) | [36-byte body id if R] | meta length (4 bytes, big endian) |
/// meta JSON | [body if I]`. The meta carries the body's length and XXH64 checksum, checked on read.
enum RedisEntryCodec {
    static let magic: [UInt8] = Array("CCR1".utf8)

    /// Everything but the body.
    struct Meta: Codable {
        var key: CacheKey
        var variantKey: String
        var request: HTTPRequest
        var response: HTTPResponse
        var userInfo: CacheUserInfo
        var storagePolicy: StoragePolicy
        var requestTime: Date
        var responseTime: Date
        var storedAt: Date
        var bodyLength: Int
        var bodyChecksum: UInt64

        init(entry: CacheEntry, bodyChecksum: UInt64) {
            key = entry.key
            variantKey = entry.variantKey
            request = entry.request
            response = entry.cached.response
            userInfo = entry.cached.userInfo
            storagePolicy = entry.cached.storagePolicy
            requestTime = entry.cached.requestTime
            responseTime = entry.cached.responseTime
            storedAt = entry.storedAt
            bodyLength = entry.cached.body.count
            self.bodyChecksum = bodyChecksum
        }

        /// The entry with a body.
        func entry(body: HTTPBody) -> CacheEntry {
            CacheEntry(
                restoringKey: key,
                variantKey: variantKey,
                request: request,
                cached: CachedResponse(
                    response: response,
                    body: body,
                    userInfo: userInfo,
                    storagePolicy: storagePolicy,
                    requestTime: requestTime,
                    responseTime: responseTime
                ),
                storedAt: storedAt
            )
        }
    }

    struct Decoded {
        var meta: Meta
        /// The inline body, or the id of the body key.
        var body: Body

        enum Body {
            case inline([UInt8])
            case reference(String)
        }
    }

    static func encode(_ meta: Meta, inlineBody: [UInt8]?, bodyID: String?) throws(CacheChainError) -> [UInt8] {
        let json: Data
        do { json = try JSONEncoder().encode(meta) } catch {
            throw CacheChainError(.storageFailed, "could not encode an entry for Redis", cacheKey: meta.key, underlying: error)
        }
        var bytes = magic
        if let bodyID {
            bytes.append(UInt8(ascii: "R"))
            bytes.append(contentsOf: Array(bodyID.utf8))
        } else {
            bytes.append(UInt8(ascii: "I"))
        }
        let length = UInt32(json.count)
        bytes.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)])
        bytes.append(contentsOf: json)
        if let inlineBody { bytes.append(contentsOf: inlineBody) }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws(CacheChainError) -> Decoded {
        guard bytes.count >= 9, Array(bytes[0..<4]) == magic else {
            throw CacheChainError(.integrityCheckFailed, "a Redis entry has an unknown format (no CCR1 header)")
        }
        var offset = 5
        let bodyID: String?
        switch bytes[4] {
        case UInt8(ascii: "I"): bodyID = nil
        case UInt8(ascii: "R"):
            guard bytes.count >= offset + 36 + 4 else { throw truncated() }
            bodyID = String(decoding: bytes[offset..<offset + 36], as: UTF8.self)
            offset += 36
        default:
            throw CacheChainError(.integrityCheckFailed, "a Redis entry has an unknown body kind")
        }
        guard bytes.count >= offset + 4 else { throw truncated() }
        let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        offset += 4
        guard bytes.count >= offset + length else { throw truncated() }
        let meta: Meta
        do { meta = try JSONDecoder().decode(Meta.self, from: Data(bytes[offset..<offset + length])) } catch {
            throw CacheChainError(.integrityCheckFailed, "a Redis entry's metadata is corrupt", underlying: error)
        }
        offset += length
        if let bodyID { return Decoded(meta: meta, body: .reference(bodyID)) }
        let body = Array(bytes[offset...])
        guard body.count == meta.bodyLength, XXHash64.hash(body) == meta.bodyChecksum else {
            throw CacheChainError(.integrityCheckFailed, "a Redis entry's body does not match its checksum", cacheKey: meta.key)
        }
        return Decoded(meta: meta, body: .inline(body))
    }

    private static func truncated() -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "a Redis entry is truncated")
    }
}
