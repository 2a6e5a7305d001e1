import CacheChainCore
@testable import CacheChainEncryption
import Testing

@Suite("Known-answer tests: Wycheproof and RFC 5869")
struct KnownAnswerTests {
    @Test("AES-256-GCM matches every Wycheproof vector with a 256-bit key, 96-bit IV and 128-bit tag")
    func aesGCM() throws {
        let file = try Fixtures.load("aes_gcm_test.json", as: AEADGroup.self)
        let tests = file.testGroups.filter { $0.keySize == 256 && $0.ivSize == 96 && $0.tagSize == 128 }.flatMap(\.tests)
        #expect(tests.count >= 60)
        var valid = 0
        var invalid = 0
        for test in tests {
            let key = hex(test.key), nonce = hex(test.iv), aad = hex(test.aad)
            let opened = try? AES256GCM.open(hex(test.ct), tag: hex(test.tag), key: key, nonce: nonce, authenticating: aad)
            if test.result == "valid" {
                valid += 1
                let sealed = try AES256GCM.seal(hex(test.msg), key: key, nonce: nonce, authenticating: aad)
                #expect(sealed.ciphertext == hex(test.ct), "tcId \(test.tcId): ciphertext")
                #expect(sealed.tag == hex(test.tag), "tcId \(test.tcId): tag")
                #expect(opened == hex(test.msg), "tcId \(test.tcId): open")
            } else if test.result == "invalid" {
                invalid += 1
                #expect(opened == nil, "tcId \(test.tcId): an invalid vector opened")
            }
        }
        #expect(valid > 0 && invalid > 0)
    }

    @Test("a tag mismatch throws integrity-check-failed")
    func aesGCMRejects() throws {
        let key = [UInt8](repeating: 7, count: 32), nonce = [UInt8](repeating: 1, count: 12)
        let sealed = try AES256GCM.seal(Array("secret".utf8), key: key, nonce: nonce)
        var tag = sealed.tag
        tag[0] ^= 1
        #expect(throws: CacheChainError.self) { try AES256GCM.open(sealed.ciphertext, tag: tag, key: key, nonce: nonce) }
        do {
            _ = try AES256GCM.open(sealed.ciphertext, tag: tag, key: key, nonce: nonce)
        } catch {
            #expect(error.code == .integrityCheckFailed)
        }
    }

    @Test("HKDF-SHA256 matches every Wycheproof vector (valid outputs, and refuses invalid sizes)")
    func hkdf() throws {
        let file = try Fixtures.load("hkdf_sha256_test.json", as: HKDFGroup.self)
        let tests = file.testGroups.flatMap(\.tests)
        #expect(tests.count == file.numberOfTests)
        for test in tests {
            let derived = try? HKDFSHA256.deriveKey(key: hex(test.ikm), salt: hex(test.salt), info: hex(test.info), outputByteCount: test.size)
            if test.result == "valid" {
                #expect(derived == hex(test.okm), "tcId \(test.tcId)")
            } else {
                #expect(derived == nil, "tcId \(test.tcId): an invalid vector derived a key")
            }
        }
    }

    /// RFC 5869 appendix A, test cases 1–3 (SHA-256).
    @Test("HKDF-SHA256 matches RFC 5869 test cases 1, 2 and 3", arguments: [
        (
            "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9", 42,
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        ),
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
                + "303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f",
            "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f"
                + "909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
            "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                + "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
            82,
            "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09"
                + "da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"
        ),
        (
            "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "", "", 42,
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        ),
    ])
    func rfc5869(ikm: String, salt: String, info: String, length: Int, okm: String) throws {
        #expect(try HKDFSHA256.deriveKey(key: hex(ikm), salt: hex(salt), info: hex(info), outputByteCount: length) == hex(okm))
    }

    @Test("HMAC-SHA256 matches every Wycheproof vector, full and truncated tags")
    func hmac() throws {
        let file = try Fixtures.load("hmac_sha256_test.json", as: MACGroup.self)
        var checked = 0
        for group in file.testGroups {
            for test in group.tests {
                let tag = try HMACSHA256.authenticationCode(key: hex(test.key), message: hex(test.msg))
                let matches = Array(tag.prefix(group.tagSize / 8)) == hex(test.tag)
                #expect(matches == (test.result == "valid"), "tcId \(test.tcId) (tag \(group.tagSize) bits)")
                checked += 1
            }
        }
        #expect(checked == file.numberOfTests)
    }
}
