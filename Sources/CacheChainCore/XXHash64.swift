/// XXH64 (xxHash, 64-bit, seed 0), streaming: the integrity checksum of Redis and disk entries. Fast (8 bytes per
/// step) and good at catching corruption and truncation; not an authenticity check (the encrypted plugin
/// adds that).
package struct XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1 = prime1 &+ prime2
    private var v2 = prime2
    private var v3: UInt64 = 0
    private var v4 = 0 &- prime1
    private var buffer = [UInt8](repeating: 0, count: 32)
    private var buffered = 0
    private var total: UInt64 = 0

    /// Creates a hasher with seed 0.
    package init() {}

    /// The hash of `bytes` in one call.
    package static func hash(_ bytes: [UInt8]) -> UInt64 {
        var hasher = XXHash64()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        var accumulator = accumulator &+ input &* prime2
        accumulator = (accumulator << 31) | (accumulator >> 33)
        return accumulator &* prime1
    }

    private static func merge(_ accumulator: UInt64, _ value: UInt64) -> UInt64 {
        let value = round(0, value)
        return (accumulator ^ value) &* prime1 &+ prime4
    }

    private static func load64(_ pointer: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private mutating func consumeStripe(_ pointer: UnsafeRawPointer) {
        v1 = Self.round(v1, Self.load64(pointer, 0))
        v2 = Self.round(v2, Self.load64(pointer, 8))
        v3 = Self.round(v3, Self.load64(pointer, 16))
        v4 = Self.round(v4, Self.load64(pointer, 24))
    }

    /// Adds bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        total &+= UInt64(bytes.count)
        var offset = 0
        if buffered > 0 {
            let take = min(32 - buffered, bytes.count)
            for index in 0..<take { buffer[buffered + index] = bytes[index] }
            buffered += take
            offset = take
            guard buffered == 32 else { return }
            buffer.withUnsafeBytes { stripe in
                if let address = stripe.baseAddress { consumeStripe(address) }
            }
            buffered = 0
        }
        while bytes.count - offset >= 32 {
            consumeStripe(base + offset)
            offset += 32
        }
        for index in offset..<bytes.count { buffer[buffered] = bytes[index]; buffered += 1 }
    }

    /// The hash of everything added.
    package func finalize() -> UInt64 {
        var hash: UInt64
        if total >= 32 {
            hash = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57)) &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            hash = Self.merge(hash, v1)
            hash = Self.merge(hash, v2)
            hash = Self.merge(hash, v3)
            hash = Self.merge(hash, v4)
        } else {
            hash = v3 &+ Self.prime5
        }
        hash &+= total
        return buffer.withUnsafeBytes { tail -> UInt64 in
            guard let pointer = tail.baseAddress else { return hash }
            var offset = 0
            while offset + 8 <= buffered {
                let lane = Self.round(0, Self.load64(pointer, offset))
                hash ^= lane
                hash = ((hash << 27) | (hash >> 37)) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if offset + 4 <= buffered {
                hash ^= UInt64(UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) &* Self.prime1
                hash = ((hash << 23) | (hash >> 41)) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < buffered {
                hash ^= UInt64(tail[offset]) &* Self.prime5
                hash = ((hash << 11) | (hash >> 53)) &* Self.prime1
                offset += 1
            }
            hash ^= hash >> 33
            hash &*= Self.prime2
            hash ^= hash >> 29
            hash &*= Self.prime3
            hash ^= hash >> 32
            return hash
        }
    }
}
