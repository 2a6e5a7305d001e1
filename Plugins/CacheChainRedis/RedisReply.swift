internal import CHiredis
import CacheChainCore

/// A reply from Redis, copied out of hiredis' reply object (which is freed at once).
enum RedisReply: Sendable, Equatable {
    case string([UInt8])
    case status(String)
    case integer(Int)
    case null
    case array([RedisReply])
    case error(String)

    /// Copies a hiredis reply tree.
    init(_ reply: UnsafeMutablePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .string(Self.bytes(value.str, Int(value.len)))
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(value.str, Int(value.len)), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, Int(value.len)), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(Int(value.elements))
            for index in 0..<Int(value.elements) {
                if let element = value.element?[index] { elements.append(RedisReply(element)) } else { elements.append(.null) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    /// This reply, unless it is an error reply (`NOAUTH`, `WRONGPASS`, `NOPERM`, `OOM`…), which is thrown: a read
    /// Redis refused is a storage failure, never "nothing stored".
    /// - Parameters:
    ///   - command: The command, for the message (e.g. `HGETALL`).
    ///   - endpoint: Where Redis is, for the message.
    /// - Returns: The reply.
    /// - Throws: `CacheChainError` `storage-failed` naming the command and Redis's error text.
    func refusingErrors(_ command: String, endpoint: String) throws(CacheChainError) -> RedisReply {
        guard case .error(let text) = self else { return self }
        let hint = text.hasPrefix("NOAUTH") || text.hasPrefix("WRONGPASS")
            ? "; give the password (RedisStorage.Configuration.password, or redis://:password@host in --redis-url)" : ""
        throw CacheChainError(.storageFailed, "Redis at \(endpoint) refused \(command): \(text)\(hint)")
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The bytes of a string reply.
    var bytes: [UInt8]? {
        if case .string(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a string or status reply.
    var text: String? {
        switch self {
        case .string(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }
}
