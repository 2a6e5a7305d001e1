#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the package's lock for state shared between threads.
///
/// Used instead of `Synchronization.Mutex`, whose lock ThreadSanitizer does not see on Linux: it reports every
/// access made under a contended `Mutex` as a race (a two-thread program appending to a `Mutex<[Int]>` is
/// enough), which buries real reports. `pthread_mutex_lock` is intercepted by ThreadSanitizer, so accesses
/// under this lock are ordered in its eyes as they are in fact. Same call shape as `Mutex.withLock`.
package final class LockedValue<Value>: @unchecked Sendable {  // invariant: `value` is only touched between lock and unlock of `mutex`
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock holding `value`.
    /// - Parameter value: The initial value.
    package init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: Reads or changes the value; must not call back into this lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
