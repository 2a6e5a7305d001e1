import CacheChainCore

extension EnvelopeHeader {
    /// Where the fields of a header lie in an envelope's first bytes, found and checked in place: the checks
    /// of ``EnvelopeHeader/parse(_:)`` (magic, version, length, segment size) without copying any field, for
    /// the single-segment fast path of a hit. The key ID is checked by ``validKeyID(in:)``, or by comparing it
    /// with a provided key's ID.
    struct Layout {
        /// ``EnvelopeHeader/magic``, for comparing in place.
        private static let magicWords: UInt32 = magic.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        /// The key ID's bytes.
        let keyID: Range<Int>
        /// The offset of the 32-byte salt.
        let salt: Int
        /// The offset of the 12-byte nonce.
        let nonce: Int
        /// The segment size the header records (within ``EnvelopeHeader/segmentSizes``).
        let segmentSize: Int
        /// The header's length in bytes.
        let count: Int

        /// Finds the fields of the header at the start of `bytes`.
        /// - Returns: `nil` when `bytes` is too short to hold the whole header yet.
        /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` for a foreign magic, an unknown version or a
        ///   segment size out of range.
        init?(_ bytes: UnsafeRawBufferPointer) throws(CacheChainError) {
            guard bytes.count >= 6 else {
                if !bytes.elementsEqual(magic.prefix(bytes.count)) { throw damaged("it does not start with the CCEN magic") }
                return nil
            }
            guard bytes.loadUnaligned(as: UInt32.self) == Self.magicWords else {
                throw damaged("it does not start with the CCEN magic")
            }
            guard bytes[4] == version else {
                throw EntryCodec.otherVersion(bytes[4], subject: "an encrypted entry")
            }
            let idLength = Int(bytes[5])
            keyID = 6..<6 + idLength
            salt = keyID.upperBound
            nonce = salt + saltByteCount
            let sizeOffset = nonce + AES256GCM.nonceByteCount
            count = sizeOffset + 4
            guard bytes.count >= count else { return nil }
            segmentSize = bytes[sizeOffset..<count].reduce(0) { $0 << 8 | Int($1) }
            guard segmentSizes.contains(segmentSize) else { throw damaged("its segment size is out of range") }
        }

        /// The key ID, checked against the rules of ``EncryptionKey`` IDs.
        /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` when it breaks them.
        func validKeyID(in bytes: UnsafeRawBufferPointer) throws(CacheChainError) -> String {
            let id = String(decoding: bytes[keyID], as: UTF8.self)
            guard EncryptionKey.isValidID(id) else { throw damaged("its key ID is malformed") }
            return id
        }
    }
}
