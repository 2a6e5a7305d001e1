import CacheChain
import CacheChainRedis
import CacheChainTesting
import Foundation
import Synchronization
import Testing

/// Values written by the build before the shared entry codec (`CCR1`, JSON metadata) are not read as the
/// current format: the lookup removes them (and the body key an old value references), reports them and
/// misses; the namespace's other entries are untouched.
@Suite("RedisStorage: values of an older format", .tags(.integration, .redis), .serialized)
struct RedisOlderFormatTests {
    @Test("an inline and a referenced CCR1 value are removed with their body key, reported, and a miss")
    func olderValuesRemoved() async throws {
        try await withRedis { server in
            let events = Mutex<[CacheEvent]>([])
            let namespace = "older-\(UUID().uuidString)"
            let backend = storage(server, namespace: namespace, events: CacheEventSink { event in events.withLock { $0.append(event) } })
            let current = StorageConformanceSuite.makeEntry(path: "/current")
            try await backend.store(current)
            let entry = MetadataGoldenEntry.entry
            let hash = "\(namespace):e:\(entry.key.stringValue)"
            let inline = try #require(Self.bytes(Self.inlineValue))
            let referenced = try #require(Self.bytes(Self.referencedValue))
            #expect(Array(inline.prefix(5)) == Array("CCR1I".utf8) && Array(referenced.prefix(5)) == Array("CCR1R".utf8))
            let bodyKey = "\(namespace):b:0123456789abcdef0123456789abcdef0123"
            try Self.redis(server.port, ["SET", bodyKey], value: Array("hello".utf8))
            try Self.redis(server.port, ["HSET", hash, "k"], value: try #require(Self.bytes(Self.keyJSON)))
            try Self.redis(server.port, ["HSET", hash, "v\(entry.variantKey)"], value: inline)
            try Self.redis(server.port, ["HSET", hash, "vother"], value: referenced)

            #expect(try await backend.entries(for: entry.key).isEmpty)
            let reported = events.withLock { $0.filter { $0.kind == .storageError } }
            #expect(reported.count == 2)
            #expect(reported.allSatisfy { $0.reasons.contains { $0.contains("not a CacheChain entry") } }, "\(reported)")
            #expect(try RedisCLI.run(port: server.port, ["EXISTS", hash]) == "0")
            #expect(try RedisCLI.run(port: server.port, ["EXISTS", bodyKey]) == "0", "the old value's body key is removed with it")
            #expect(try await backend.entries(for: current.key) == [current])
            #expect(try await backend.keys() == [current.key])

            try await backend.store(entry.withPolicy(.allowed))
            #expect(try await backend.entries(for: entry.key) == [entry.withPolicy(.allowed)])
        }
    }

    /// Runs `redis-cli -x` with `value` as its last argument (binary-safe, through standard input).
    static func redis(_ port: Int, _ arguments: [String], value: [UInt8]) throws {
        let process = try ChildProcess("/usr/bin/redis-cli", ["-p", String(port), "-x"] + arguments, standardInput: .pipe)
        process.standardInput?.write(Data(value))
        try process.standardInput?.close()
        #expect(process.waitUntilExit() == 0)
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    // Written by the previous build (main at 97d84e3) for `MetadataGoldenEntry.entry`: `RedisEntryCodec.encode`
    // with its body inline, and with the body under the id `0123…0123`; the `k` field is its key as JSON.
    static let inlineValue =
        "4343523149000003847b226b6579223a7b22617574686f72697479223a226578616d706c652e636f6d222c2270617468223a"
        + "225c2f613f623d31222c226469736372696d696e61746f72223a2274656e616e743d31222c226d6574686f64223a22474554"
        + "222c22736368656d65223a226874747073227d2c2272657175657374223a7b2270736575646f4865616465724669656c6473"
        + "223a5b7b226e616d65223a223a6d6574686f64222c2276616c7565223a22474554227d2c7b226e616d65223a223a73636865"
        + "6d65222c2276616c7565223a226874747073227d2c7b226e616d65223a223a617574686f72697479222c2276616c7565223a"
        + "226578616d706c652e636f6d227d2c7b226e616d65223a223a70617468222c2276616c7565223a225c2f613f623d31227d5d"
        + "2c226865616465724669656c6473223a5b7b226e616d65223a22416363657074222c2276616c7565223a22746578745c2f70"
        + "6c61696e227d2c7b226e616d65223a224163636570742d4c616e6775616765222c2276616c7565223a22656e227d5d7d2c22"
        + "726573706f6e7365223a7b2270736575646f4865616465724669656c6473223a5b7b226e616d65223a223a73746174757322"
        + "2c2276616c7565223a22323030227d5d2c226865616465724669656c6473223a5b7b226e616d65223a2243616368652d436f"
        + "6e74726f6c222c2276616c7565223a226d61782d6167653d3630227d2c7b226e616d65223a2245546167222c2276616c7565"
        + "223a225c2276315c22227d2c7b226e616d65223a2256617279222c2276616c7565223a22416363657074227d2c7b226e616d"
        + "65223a225365742d436f6f6b6965222c22696e646578696e675374726174656779223a332c2276616c7565223a22613d6222"
        + "7d5d2c22726561736f6e506872617365223a224f4b227d2c2273746f72616765506f6c696379223a22616c6c6f776564496e"
        + "4d656d6f72794f6e6c79222c2275736572496e666f223a7b22656e636f646564223a7b22746167223a22496e5169222c2269"
        + "64223a224e773d3d227d7d2c22726573706f6e736554696d65223a313030312e352c2273746f7265644174223a313030322e"
        + "37352c22626f64794c656e677468223a352c2276617269616e744b6579223a226163636570743d746578745c2f706c61696e"
        + "222c22626f6479436865636b73756d223a323739343334353536393438313335343635392c227265717565737454696d6522"
        + "3a313030302e32357d68656c6c6f"
    static let referencedValue =
        "4343523152303132333435363738396162636465663031323334353637383961626364656630313233000003847b226b6579"
        + "223a7b226469736372696d696e61746f72223a2274656e616e743d31222c2270617468223a225c2f613f623d31222c226175"
        + "74686f72697479223a226578616d706c652e636f6d222c226d6574686f64223a22474554222c22736368656d65223a226874"
        + "747073227d2c2276617269616e744b6579223a226163636570743d746578745c2f706c61696e222c2275736572496e666f22"
        + "3a7b22656e636f646564223a7b226964223a224e773d3d222c22746167223a22496e5169227d7d2c22726573706f6e736522"
        + "3a7b22726561736f6e506872617365223a224f4b222c226865616465724669656c6473223a5b7b226e616d65223a22436163"
        + "68652d436f6e74726f6c222c2276616c7565223a226d61782d6167653d3630227d2c7b226e616d65223a2245546167222c22"
        + "76616c7565223a225c2276315c22227d2c7b226e616d65223a2256617279222c2276616c7565223a22416363657074227d2c"
        + "7b226e616d65223a225365742d436f6f6b6965222c2276616c7565223a22613d62222c22696e646578696e67537472617465"
        + "6779223a337d5d2c2270736575646f4865616465724669656c6473223a5b7b226e616d65223a223a737461747573222c2276"
        + "616c7565223a22323030227d5d7d2c22726573706f6e736554696d65223a313030312e352c22626f6479436865636b73756d"
        + "223a323739343334353536393438313335343635392c2273746f7265644174223a313030322e37352c2273746f7261676550"
        + "6f6c696379223a22616c6c6f776564496e4d656d6f72794f6e6c79222c227265717565737454696d65223a313030302e3235"
        + "2c2272657175657374223a7b226865616465724669656c6473223a5b7b2276616c7565223a22746578745c2f706c61696e22"
        + "2c226e616d65223a22416363657074227d2c7b2276616c7565223a22656e222c226e616d65223a224163636570742d4c616e"
        + "6775616765227d5d2c2270736575646f4865616465724669656c6473223a5b7b2276616c7565223a22474554222c226e616d"
        + "65223a223a6d6574686f64227d2c7b2276616c7565223a226874747073222c226e616d65223a223a736368656d65227d2c7b"
        + "2276616c7565223a226578616d706c652e636f6d222c226e616d65223a223a617574686f72697479227d2c7b2276616c7565"
        + "223a225c2f613f623d31222c226e616d65223a223a70617468227d5d7d2c22626f64794c656e677468223a357d"
    static let keyJSON =
        "7b226469736372696d696e61746f72223a2274656e616e743d31222c2270617468223a225c2f613f623d31222c2261757468"
        + "6f72697479223a226578616d706c652e636f6d222c226d6574686f64223a22474554222c22736368656d65223a2268747470"
        + "73227d"
}

extension CacheEntry {
    /// The entry with another storage policy (the golden entry is memory-only, which Redis refuses).
    func withPolicy(_ policy: StoragePolicy) -> CacheEntry {
        var entry = self
        entry.cached.storagePolicy = policy
        return entry
    }
}
