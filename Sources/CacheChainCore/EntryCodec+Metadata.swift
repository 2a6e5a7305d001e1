import Foundation
import HTTPTypes

/// An entry's metadata: everything but the body. Strings and data are a 32-bit length and the bytes, integers
/// little-endian; `OnDiskFormat.md` lists the fields in order.
extension EntryCodec {
    /// Encodes an entry's metadata (its body is not read).
    /// - Parameter entry: The entry.
    /// - Returns: The metadata's bytes.
    package static func encodeMetadata(_ entry: CacheEntry) -> [UInt8] {
        var writer = BinaryWriter(byteOrder: .littleEndian)
        encodeKey(entry.key, into: &writer)
        writer.string(entry.variantKey)
        writer.string(entry.request.method.rawValue)
        writer.optionalString(entry.request.scheme)
        writer.optionalString(entry.request.authority)
        writer.optionalString(entry.request.path)
        encodeFields(entry.request.headerFields, into: &writer)
        writer.u32(UInt32(entry.cached.response.status.code))
        writer.string(entry.cached.response.status.reasonPhrase)
        encodeFields(entry.cached.response.headerFields, into: &writer)
        let info = entry.cached.userInfo.encodedValues.sorted { $0.key < $1.key }
        writer.u32(UInt32(info.count))
        for (name, value) in info {
            writer.string(name)
            writer.data(value)
        }
        writer.u8(policyCode(entry.cached.storagePolicy))
        writer.u64(entry.cached.requestTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.u64(entry.cached.responseTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.u64(entry.storedAt.timeIntervalSinceReferenceDate.bitPattern)
        return writer.bytes
    }

    /// Decodes metadata into an entry.
    /// - Parameters:
    ///   - bytes: The metadata, exactly.
    ///   - body: The body to give the entry.
    ///   - subject: What the bytes are, for errors (e.g. "a disk cache entry's metadata").
    /// - Returns: The entry.
    /// - Throws: `integrity-check-failed` when the metadata is damaged or has bytes left over.
    package static func decodeMetadata(
        _ bytes: UnsafeRawBufferPointer,
        body: PipelineBody,
        subject: String
    ) throws(CacheChainError) -> CacheEntry {
        var reader = BinaryReader(bytes, subject: subject)
        let key = try decodeKey(&reader)
        let variantKey = try reader.string()
        guard let method = HTTPRequest.Method(try reader.string()) else { throw reader.malformed("request method") }
        let request = HTTPRequest(
            method: method,
            scheme: try reader.optionalString(),
            authority: try reader.optionalString(),
            path: try reader.optionalString(),
            headerFields: try decodeFields(&reader)
        )
        let code = Int(try reader.u32())
        guard (100...999).contains(code) else { throw reader.malformed("status") }
        let reason = try reader.string()
        let response = HTTPResponse(status: HTTPResponse.Status(code: code, reasonPhrase: reason), headerFields: try decodeFields(&reader))
        let infoCount = Int(try reader.u32())
        var info: [String: Data] = [:]
        for _ in 0..<min(infoCount, reader.remainingCount) {
            let name = try reader.string()
            info[name] = Data(try reader.data())
        }
        guard let policy = policy(try reader.u8()) else { throw reader.malformed("storage policy") }
        let requestTime = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.u64()))
        let responseTime = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.u64()))
        let storedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.u64()))
        guard reader.isAtEnd else { throw reader.malformed("bytes left over") }
        return CacheEntry(
            restoringKey: key,
            variantKey: variantKey,
            request: request,
            cached: CachedResponse(
                response: response,
                body: body,
                userInfo: CacheUserInfo(encodedValues: info),
                storagePolicy: policy,
                requestTime: requestTime,
                responseTime: responseTime
            ),
            storedAt: storedAt
        )
    }

    /// Decodes metadata held in an array (as the buffer variant does).
    package static func decodeMetadata(_ bytes: [UInt8], body: PipelineBody, subject: String) throws(CacheChainError) -> CacheEntry {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CacheChainError) in try decodeMetadata(raw, body: body, subject: subject) }
        }
        return try result.get()
    }

    /// Encodes a key alone, as the metadata starts with it (what the Redis backend keeps per primary key).
    /// - Parameter key: The key.
    /// - Returns: Its method, scheme, authority, path and discriminator.
    package static func encodeKey(_ key: CacheKey) -> [UInt8] {
        var writer = BinaryWriter(byteOrder: .littleEndian, capacity: 128)
        encodeKey(key, into: &writer)
        return writer.bytes
    }

    /// Decodes what ``encodeKey(_:)`` wrote.
    /// - Parameter bytes: The bytes.
    /// - Returns: The key, or `nil` when the bytes are not exactly one encoded key.
    package static func decodeKey(_ bytes: [UInt8]) -> CacheKey? {
        bytes.withUnsafeBytes { raw in
            var reader = BinaryReader(raw, subject: "a stored cache key")
            guard let key = try? decodeKey(&reader), reader.isAtEnd else { return nil }
            return key
        }
    }

    private static let keyTemplate = CacheKey(method: "GET", scheme: "https", authority: "", path: "/")

    private static func encodeKey(_ key: CacheKey, into writer: inout BinaryWriter) {
        writer.string(key.method)
        writer.string(key.scheme)
        writer.string(key.authority)
        writer.string(key.path)
        writer.string(key.discriminator)
    }

    private static func decodeKey(_ reader: inout BinaryReader) throws(CacheChainError) -> CacheKey {
        // A stored key was normalized when it was made: assign its parts rather than normalize again.
        var key = keyTemplate
        key.method = try reader.string()
        key.scheme = try reader.string()
        key.authority = try reader.string()
        key.path = try reader.string()
        key.discriminator = try reader.string()
        return key
    }

    private static func encodeFields(_ fields: HTTPFields, into writer: inout BinaryWriter) {
        writer.u32(UInt32(fields.count))
        for field in fields {
            writer.string(field.name.rawName)
            writer.u8(strategyCode(field.indexingStrategy))
            field.withUnsafeBytesOfValue { writer.data($0) }
        }
    }

    private static func decodeFields(_ reader: inout BinaryReader) throws(CacheChainError) -> HTTPFields {
        let count = Int(try reader.u32())
        var fields = HTTPFields()
        fields.reserveCapacity(min(count, 256))
        for _ in 0..<count {
            guard let name = HTTPField.Name(try reader.string()) else { throw reader.malformed("field name") }
            let strategy = try reader.u8()
            var field = HTTPField(name: name, value: try reader.data())
            field.indexingStrategy = switch strategy {
            case 1: .prefer
            case 2: .avoid
            case 3: .disallow
            default: .automatic
            }
            fields.append(field)
        }
        return fields
    }

    private static func strategyCode(_ strategy: HTTPField.DynamicTableIndexingStrategy) -> UInt8 {
        switch strategy {
        case .prefer: 1
        case .avoid: 2
        case .disallow: 3
        default: 0
        }
    }

    private static func policyCode(_ policy: StoragePolicy) -> UInt8 {
        switch policy {
        case .allowed: 0
        case .allowedInMemoryOnly: 1
        case .notAllowed: 2
        }
    }

    private static func policy(_ code: UInt8) -> StoragePolicy? {
        switch code {
        case 0: .allowed
        case 1: .allowedInMemoryOnly
        case 2: .notAllowed
        default: nil
        }
    }
}
