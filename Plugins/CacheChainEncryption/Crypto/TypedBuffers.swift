import CacheChainCore

// The standard library's `withUnsafeBytes` family is `rethrows`, which erases typed throws: these
// wrappers keep `throws(CacheChainError)` through buffer access.

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` with a typed error.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(CacheChainError) -> Result) throws(CacheChainError) -> Result {
        let outcome = withUnsafeBytes { bytes in Swift.Result { () throws(CacheChainError) in try body(bytes) } }
        return try outcome.get()
    }

    /// `withUnsafeMutableBytes` with a typed error.
    mutating func withMutableBytes<Result>(
        _ body: (UnsafeMutableRawBufferPointer) throws(CacheChainError) -> Result
    ) throws(CacheChainError) -> Result {
        let outcome = withUnsafeMutableBytes { bytes in Swift.Result { () throws(CacheChainError) in try body(bytes) } }
        return try outcome.get()
    }
}
