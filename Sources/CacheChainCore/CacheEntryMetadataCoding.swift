import Foundation
import HTTPTypes

/// The binary layout of an entry's metadata (everything but the body), shared by the disk storage's entry
/// files and the encryption plugin's sealed envelopes; each format chooses its byte order and what comes
/// before it (the disk format starts with its own version byte).
///
/// Layout (strings and data as a 32-bit length + bytes): key (method, scheme, authority, path,
/// discriminator) · variant key · request (method, optional scheme/authority/path, fields) · response
/// (status code, reason phrase, fields) · userInfo (count, then name + JSON data, by name) · storage policy ·
/// request, response and stored times (IEEE-754 bit patterns, so dates round-trip exactly) · body length.
/// Fields are a count, then name, HPACK indexing strategy and raw value bytes each, in order (repeated
/// fields kept).
package enum CacheEntryMetadataCoding {
    /// Writes an entry's metadata.
    /// - Parameters:
    ///   - entry: The entry; its body's length is recorded, not its bytes.
    ///   - writer: Where to write.
    package static func encode(_ entry: CacheEntry, into writer: inout BinaryWriter) {
        writer.string(entry.key.method)
        writer.string(entry.key.scheme)
        writer.string(entry.key.authority)
        writer.string(entry.key.path)
        writer.string(entry.key.discriminator)
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
        writer.u64(UInt64(entry.cached.body.count))
    }

    /// Reads an entry's metadata; the reader must then be at its end.
    /// - Parameters:
    ///   - reader: Where to read.
    ///   - body: The body to give the entry.
    /// - Returns: The entry and the body length recorded in the metadata.
    /// - Throws: `integrity-check-failed` when the metadata is damaged or has bytes left over.
    package static func decode(
        _ reader: inout BinaryReader,
        body: HTTPBody
    ) throws(CacheChainError) -> (entry: CacheEntry, bodyLength: Int) {
        // A stored key was normalized when it was made: assign its parts rather than normalize again.
        var key = keyTemplate
        key.method = try reader.string()
        key.scheme = try reader.string()
        key.authority = try reader.string()
        key.path = try reader.string()
        key.discriminator = try reader.string()
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
        let bodyLength = Int(truncatingIfNeeded: try reader.u64())
        guard reader.isAtEnd, bodyLength >= 0 else { throw reader.malformed("length") }
        let entry = CacheEntry(
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
        return (entry, bodyLength)
    }

    private static let keyTemplate = CacheKey(method: "GET", scheme: "https", authority: "", path: "/")

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
