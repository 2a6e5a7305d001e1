import CacheChainCore

/// One envelope's subkey and a decryption context already keyed with it, kept together in
/// ``DerivedKeyCache``: a hit on a remembered envelope then skips the HKDF and the AES key schedule
/// (allocating, keying and freeing a libcrypto context is about a fifth of a 1 KiB encrypted hit).
///
/// The idle context is taken out under the lock for one open and put back after it, so no two calls ever
/// use it at once; a call that finds the slot empty (another open of the same envelope is running) keys a
/// context of its own. Freeing a context wipes its key schedule, like ``SecureBytes`` wipes the subkey.
final class SubkeyContexts: Sendable {
    /// The subkey.
    let subkey: SecureBytes
    private let idle = LockedValue<AESGCMContext?>(nil)

    init(subkey: SecureBytes) {
        self.subkey = subkey
    }

    /// Runs `body` with a decryption context keyed with ``subkey``, then keeps the context for the next call.
    func withOpeningContext<Result>(
        _ body: (AESGCMContext) throws(CacheChainError) -> Result
    ) throws(CacheChainError) -> Result {
        let context: AESGCMContext
        if let parked = idle.withLock({ $0.take() }) {
            context = parked
        } else {
            context = try subkey.withBytes { (key) throws(CacheChainError) in try AESGCMContext(key: key, encrypting: false) }
        }
        let result = try body(context)
        idle.withLock { slot in
            if slot == nil { slot = context }
        }
        return result
    }
}
