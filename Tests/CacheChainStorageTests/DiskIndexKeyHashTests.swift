@testable import CacheChainStorage
import CacheChainCore
import Testing

@Suite("Disk index key hash")
struct DiskIndexKeyHashTests {
    @Test("the indexed key hash is XXH64 of the key's UTF-8 bytes, as existing indexes recorded it")
    func keyHashIsXXH64() {
        let keys = [
            "", "a", "GET http://origin.test/n/1",
            "GET https://example.com/\u{E9}t\u{E9}?q=1 {accept=text/html}",
            String(repeating: "GET https://example.com/long/path?", count: 9),
        ]
        for key in keys {
            #expect(DiskIndex.keyHash(key) == Int64(bitPattern: XXHash64.hash(Array(key.utf8))), "\(key)")
        }
        // The published XXH64 test value of the empty input (seed 0).
        #expect(UInt64(bitPattern: DiskIndex.keyHash("")) == 0xEF46_DB37_51D8_E999)
        #expect(DiskIndex.keyHash("GET http://a.test/1") != DiskIndex.keyHash("GET http://a.test/2"))
    }
}
