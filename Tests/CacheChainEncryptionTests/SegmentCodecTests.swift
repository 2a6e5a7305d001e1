import CacheChainCore
@testable import CacheChainEncryption
import Testing

@Suite("Segment codec (streaming)")
struct SegmentCodecTests {
    func roundTrip(plaintextCount: Int, segmentSize: Int, inputChunk: Int, outputChunk: Int) throws -> Bool {
        let plaintext = (0..<plaintextCount).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        let key = SecureBytes([UInt8](repeating: 9, count: 32))
        let header = try EnvelopeHeader(keyID: "k", segmentSize: segmentSize)
        let sealer = try SegmentSealer(subkey: key, header: header, aadPrefix: [1, 2, 3])
        var sealed: [UInt8] = []
        let collect = { (bytes: UnsafeRawBufferPointer) throws(CacheChainError) in sealed += bytes }
        var offset = 0
        repeat {
            let end = min(plaintext.count, offset + inputChunk)
            try Array(plaintext[offset..<end]).withBytes { (chunk) throws(CacheChainError) in try sealer.append(chunk, emit: collect) }
            offset = end
        } while offset < plaintext.count
        try sealer.finish(emit: collect)
        #expect(sealed.count == SegmentSealer.sealedByteCount(plaintextCount: plaintextCount, segmentSize: segmentSize))

        let opener = try SegmentOpener(subkey: key, header: header, aadPrefix: [1, 2, 3])
        var opened: [UInt8] = []
        var largestEmit = 0
        let output = { (bytes: UnsafeRawBufferPointer) throws(CacheChainError) in
            largestEmit = max(largestEmit, bytes.count)
            opened += bytes
        }
        offset = 0
        while offset < sealed.count {
            let end = min(sealed.count, offset + outputChunk)
            try Array(sealed[offset..<end]).withBytes { (chunk) throws(CacheChainError) in try opener.append(chunk, emit: output) }
            offset = end
        }
        try opener.finish(emit: output)
        #expect(largestEmit <= segmentSize)
        return opened == plaintext
    }

    @Test("any plaintext size, segment boundary and chunking round-trips", arguments: [
        (0, 1024, 1, 1), (1, 1024, 1, 7), (1023, 1024, 100, 1040), (1024, 1024, 1024, 1040), (1025, 1024, 1025, 1041),
        (2048, 1024, 4096, 13), (5000, 1024, 333, 2081), (70_000, 65536, 70_000, 70_000), (131_072, 65536, 65536, 65552),
    ])
    func roundTrips(count: Int, segment: Int, inputChunk: Int, outputChunk: Int) throws {
        #expect(try roundTrip(plaintextCount: count, segmentSize: segment, inputChunk: inputChunk, outputChunk: outputChunk))
    }

    @Test("associated data binds the segments: another prefix fails")
    func aadBinding() throws {
        let key = SecureBytes([UInt8](repeating: 9, count: 32))
        let header = try EnvelopeHeader(keyID: "k", segmentSize: 1024)
        let sealer = try SegmentSealer(subkey: key, header: header, aadPrefix: [1])
        var sealed: [UInt8] = []
        try [UInt8](repeating: 5, count: 100).withBytes { (chunk) throws(CacheChainError) in
            try sealer.append(chunk) { (bytes) throws(CacheChainError) in sealed += bytes }
        }
        try sealer.finish { (bytes) throws(CacheChainError) in sealed += bytes }
        let opener = try SegmentOpener(subkey: key, header: header, aadPrefix: [2])
        var opened: [UInt8] = []
        let result = Result { () throws(CacheChainError) in
            try sealed.withBytes { (chunk) throws(CacheChainError) in try opener.append(chunk) { (bytes) throws(CacheChainError) in opened += bytes } }
            try opener.finish { (bytes) throws(CacheChainError) in opened += bytes }
        }
        #expect(throws: CacheChainError.self) { try result.get() }
        #expect(opened.isEmpty)
    }
}
