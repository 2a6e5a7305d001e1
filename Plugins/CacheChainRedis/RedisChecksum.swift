internal import CXXHash

/// XXH64 (seed 0) of an entry record's metadata followed by its body, streamed through libxxhash: the
/// integrity checksum of Redis values (`EntryCodec` header). Good at catching corruption and truncation; not an
/// authenticity check (the encrypted plugin adds that).
package struct RedisChecksum {
    private var state = XXH64_state_t()

    /// Starts a checksum.
    package init() { XXH64_reset(&state, 0) }

    /// Adds bytes.
    /// - Parameter bytes: The next bytes of the input.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        XXH64_update(&state, base, bytes.count)
    }

    /// The checksum of everything added so far.
    package func finalize() -> UInt64 {
        withUnsafePointer(to: state) { XXH64_digest($0) }
    }
}
