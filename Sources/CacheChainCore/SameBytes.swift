#if canImport(Glibc)
import Glibc
#endif

/// Whether two byte buffers hold the same bytes (one `memcmp`): how the metadata memos check that bytes just
/// read are the ones they decoded before.
package func sameBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
    guard left.count == right.count else { return false }
    guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
    return memcmp(leftBase, rightBase, left.count) == 0
}
