import Synchronization

/// Enforces, in debug builds, that an interceptor calls `next` at most once per request.
final class CallOnceGate: Sendable {
    private let passed = Atomic<Bool>(false)
    private let interceptorName: String

    init(interceptorName: String) {
        self.interceptorName = interceptorName
    }

    /// Lets the first call through; throws on any later one.
    func pass() throws {
        guard !passed.exchange(true, ordering: .relaxed) else {
            throw CacheChainError(
                .interceptorContractViolation,
                "\(interceptorName) called next more than once; an interceptor must call next at most once per request"
            )
        }
    }
}
